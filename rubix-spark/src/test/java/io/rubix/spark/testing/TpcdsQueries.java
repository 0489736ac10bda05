package io.rubix.spark.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The TPC-DS queries Spark ships in its {@code spark-sql_2.13:tests} jar ({@code tpcds/q*.sql}), read
 * from that jar on the classpath at run time.
 */
public final class TpcdsQueries {
  private TpcdsQueries() {}

  /** The text of query {@code name} ({@code q3}, {@code q14a}, ...) without its license header. */
  public static String text(String name) {
    String resource = "tpcds/" + name + ".sql";
    try (InputStream in = TpcdsQueries.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("No " + resource + " on the classpath (spark-sql_2.13:tests jar missing?)");
      }
      StringBuilder sql = new StringBuilder();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.trim().startsWith("--")) {
          sql.append(line).append('\n');
        }
      }
      return sql.toString().trim().replaceAll(";\\s*$", "");
    } catch (IOException e) {
      throw new UncheckedIOException("Reading " + resource, e);
    }
  }
}
