package io.rubix.spark35;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The child JVM's main class: Spark 3.5 local mode writing ORC and Parquet tables to the S3 server through
 * plain S3A, then running the same queries with caching off, cold and warm through
 * {@code CachingS3AFileSystem}. Prints one {@value #RESULT} line per format for {@link Spark35IT}.
 *
 * <p>Spark is called by reflection: its classes come from the child's classpath only (Spark 3.5, Scala
 * 2.12 or 2.13), so this class compiles against the JDK alone and the same class runs on every artifact.
 *
 * <p>Arguments: {@code endpoint control cacheDir plugin(true|false) bookKeeperPort nodesFile} (the endpoint only
 * names the server: S3A's settings for it, endpoint and keys included, are the system properties {@code s3a.<key>}).
 */
public final class Spark35Scenario {
  static final String RESULT = "SPARK35-RESULT ";
  private static final String BUCKET = "spark35";
  private static final List<String> QUERIES = List.of(
      "SELECT i.category, count(*) AS n, sum(s.price) AS revenue FROM %1$s_sales s JOIN %1$s_item i ON s.item_sk = i.item_sk"
          + " WHERE s.date_sk BETWEEN 100 AND 2000 GROUP BY i.category ORDER BY i.category",
      "SELECT store_sk, count(DISTINCT cust) AS customers, sum(price) AS revenue FROM %1$s_sales GROUP BY store_sk"
          + " ORDER BY revenue DESC, store_sk LIMIT 20",
      "SELECT count(*), sum(price), max(cust) FROM %1$s_sales WHERE price > 50");

  private final HttpClient http = HttpClient.newHttpClient();
  private final URI control;
  private final Object spark;

  private Spark35Scenario(URI control, Object spark) {
    this.control = control;
    this.spark = spark;
  }

  public static void main(String[] args) throws Exception {
    URI control = URI.create(args[1]);
    boolean plugin = Boolean.parseBoolean(args[3]);
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("spark.ui.enabled", "false");
    settings.put("spark.driver.host", "127.0.0.1");
    settings.put("spark.driver.bindAddress", "127.0.0.1");
    settings.put("spark.sql.shuffle.partitions", "2");
    settings.put("spark.sql.warehouse.dir", args[2] + "-warehouse");
    // the test server's S3A settings, handed over by Spark35IT as s3a.<key> system properties
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("s3a.fs.s3a.")) {
        settings.put("spark.hadoop." + name.substring("s3a.".length()), System.getProperty(name));
      }
    }
    settings.put("spark.hadoop.fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    settings.put("spark.hadoop.rubix.cache.dirs", args[2]);
    settings.put("spark.hadoop.rubix.bookkeeper.metrics.port", "-1");
    settings.put("spark.hadoop.rubix.network.transfer.server.port", "-1");
    if (plugin) {
      settings.put("spark.plugins", "io.rubix.spark.RubixPlugin");
      settings.put("spark.hadoop.rubix.network.bookkeeper.server.port", args[4]);
      settings.put("spark.rubix.nodes.file", args[5]);
    }
    Object builder = Class.forName("org.apache.spark.sql.SparkSession").getMethod("builder").invoke(null);
    builder = call(builder, "master", "local[2]");
    builder = call(builder, "appName", "rubix-spark35");
    for (Map.Entry<String, String> entry : settings.entrySet()) {
      builder = call(builder, "config", entry.getKey(), entry.getValue());
    }
    Object spark = call(builder, "getOrCreate");
    try {
      System.out.println("SPARK35-VERSION " + call(spark, "version"));
      Spark35Scenario scenario = new Spark35Scenario(control, spark);
      scenario.caching(false);
      scenario.writeTables();
      for (String format : List.of("orc", "parquet")) {
        scenario.compare(format);
      }
    } finally {
      call(spark, "stop");
    }
  }

  private void writeTables() throws Exception {
    for (String format : List.of("orc", "parquet")) {
      sql("CREATE TABLE " + format + "_sales USING " + format + " LOCATION 's3a://" + BUCKET + "/" + format + "/sales' AS"
          + " SELECT id AS ss_id, CAST(id % 1000 AS INT) AS item_sk, CAST(id % 97 AS INT) AS store_sk,"
          + " CAST(id % 3650 AS INT) AS date_sk, CAST(id * 7919 % 10000 AS DECIMAL(12, 2)) / 100 AS price,"
          + " concat('customer-', id % 5000) AS cust FROM range(0, 1000000, 1, 4)");
      sql("CREATE TABLE " + format + "_item USING " + format + " LOCATION 's3a://" + BUCKET + "/" + format + "/item' AS"
          + " SELECT CAST(id AS INT) AS item_sk, concat('category-', id % 13) AS category FROM range(0, 1000, 1, 1)");
    }
  }

  private void compare(String format) throws Exception {
    caching(false);
    reset();
    long start = System.nanoTime();
    List<List<String>> direct = run(format);
    long directMs = (System.nanoTime() - start) / 1_000_000;
    String directCounters = reset();
    caching(true);
    start = System.nanoTime();
    List<List<String>> cold = run(format);
    long coldMs = (System.nanoTime() - start) / 1_000_000;
    String coldCounters = reset();
    caching(true);
    start = System.nanoTime();
    List<List<String>> warm = run(format);
    long warmMs = (System.nanoTime() - start) / 1_000_000;
    String warmCounters = reset();
    boolean nonEmpty = direct.stream().noneMatch(List::isEmpty);
    System.out.println(RESULT + "format=" + format + " nonEmpty=" + nonEmpty + " coldEqual=" + cold.equals(direct)
        + " warmEqual=" + warm.equals(direct) + " directMs=" + directMs + " coldMs=" + coldMs + " warmMs=" + warmMs
        + " direct=" + directCounters + " cold=" + coldCounters + " warm=" + warmCounters);
  }

  private List<List<String>> run(String format) throws Exception {
    List<List<String>> answers = new ArrayList<>();
    for (String query : QUERIES) {
      List<String> rows = new ArrayList<>();
      for (Object row : (List<?>) call(sql(String.format(query, format)), "collectAsList")) {
        rows.add(row.toString());
      }
      answers.add(rows);
    }
    return answers;
  }

  /**
   * Switches caching for the following reads: drops the JVM's file system instances and creates the
   * bucket's next one with the session's setting, so whichever thread asks next gets it.
   */
  private void caching(boolean enabled) throws Exception {
    call(call(spark, "conf"), "set", "rubix.cache.enabled", Boolean.toString(enabled));
    Class<?> fileSystem = Class.forName("org.apache.hadoop.fs.FileSystem");
    fileSystem.getMethod("closeAll").invoke(null);
    Object conf = call(call(spark, "sessionState"), "newHadoopConf");
    Object path = Class.forName("org.apache.hadoop.fs.Path").getConstructor(String.class).newInstance("s3a://" + BUCKET + "/");
    Object fs = path.getClass().getMethod("getFileSystem", Class.forName("org.apache.hadoop.conf.Configuration")).invoke(path, conf);
    if (!fs.getClass().getName().equals("io.rubix.hadoop.CachingS3AFileSystem")) {
      throw new IllegalStateException("s3a:// is served by " + fs.getClass().getName());
    }
    if ((call(fs, "cacheEngine") != null) != enabled) {
      throw new IllegalStateException("caching is not " + (enabled ? "on" : "off") + " in " + fs);
    }
  }

  private Object sql(String text) throws Exception {
    return call(spark, "sql", text);
  }

  /** Zeroes the server's counters and returns what they were, as {@code gets=.. heads=.. lists=.. bytes=..}. */
  private String reset() throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(control.resolve("/reset")).POST(HttpRequest.BodyPublishers.noBody()).build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("S3 server control " + control + " answered " + response.statusCode());
    }
    return String.join(",", response.body().strip().split("\\s+"));
  }

  private static Object call(Object target, String method, String... args) throws Exception {
    Class<?>[] types = new Class<?>[args.length];
    Arrays.fill(types, String.class);
    Method m = target.getClass().getMethod(method, types);
    m.setAccessible(true);
    try {
      return m.invoke(target, (Object[]) args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }
}
