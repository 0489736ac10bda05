package io.rubix.hive.testing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * One embedded HiveServer2 session ({@code jdbc:hive2://}) in its own JVM, driven over stdin by
 * {@link HiveProcess}: each input line is a SQL statement or {@code !closeall}, which drops the JVM's
 * cached Hadoop file systems so the next query creates them with the session's current settings.
 * Each answer is the result rows (columns separated by tabs) on stdout, then {@link #DONE} or
 * {@link #FAILED} with the error. {@code !locations <directory>} answers, for each file of the
 * directory, its path and the hosts the file system reports for its first split
 * ({@code listLocatedStatus}, as split generation asks), separated by tabs. Hive's configuration
 * comes from {@code hive-site.xml} and
 * {@code core-site.xml} on the classpath, as in a Hive installation. Exits when stdin closes.
 */
public final class HiveSessionMain {
  public static final String READY = "#READY";
  public static final String DONE = "#DONE";
  public static final String FAILED = "#FAILED ";
  public static final String CLOSE_ALL = "!closeall";
  public static final String LOCATIONS = "!locations ";

  private HiveSessionMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    // Hive and its libraries log to stdout through log4j2's console appender unless told otherwise
    System.setOut(System.err);
    Class.forName("org.apache.hive.jdbc.HiveDriver");
    try (Connection connection = DriverManager.getConnection("jdbc:hive2://", "", "");
         BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      out.println(READY);
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        try {
          if (line.equals(CLOSE_ALL)) {
            FileSystem.closeAll();
          } else if (line.startsWith(LOCATIONS)) {
            locations(new Path(line.substring(LOCATIONS.length())), out);
          } else {
            execute(connection, line, out);
          }
          out.println(DONE);
        } catch (SQLException | java.io.IOException | RuntimeException e) {
          e.printStackTrace();
          out.println(FAILED + String.valueOf(e).replace('\n', ' '));
        }
      }
    }
    System.exit(0);
  }

  private static void locations(Path directory, PrintStream out) throws java.io.IOException {
    Configuration conf = new Configuration();
    conf.addResource("hive-site.xml");
    FileSystem fs = directory.getFileSystem(conf);
    RemoteIterator<LocatedFileStatus> files = fs.listLocatedStatus(directory);
    while (files.hasNext()) {
      LocatedFileStatus file = files.next();
      if (file.isFile() && file.getBlockLocations().length > 0) {
        out.println(file.getPath() + "\t" + String.join(",", file.getBlockLocations()[0].getHosts()));
      }
    }
  }

  private static void execute(Connection connection, String sql, PrintStream out) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      if (!statement.execute(sql)) {
        return;
      }
      try (ResultSet rows = statement.getResultSet()) {
        int columns = rows.getMetaData().getColumnCount();
        while (rows.next()) {
          StringBuilder row = new StringBuilder();
          for (int i = 1; i <= columns; i++) {
            if (i > 1) {
              row.append('\t');
            }
            row.append(rows.getString(i));
          }
          out.println(row);
        }
      }
    }
  }
}
