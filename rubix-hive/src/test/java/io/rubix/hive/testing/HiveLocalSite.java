package io.rubix.hive.testing;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** What every Hive the tests start shares: an embedded Derby metastore and scratch folders under one directory, and logging to a file. */
public final class HiveLocalSite {
  private HiveLocalSite() {}

  /** hive-site.xml entries for a metastore, warehouse and scratch folders under {@code dir}, no locking, no statistics. */
  public static Map<String, String> metastoreAndScratch(Path dir) {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("javax.jdo.option.ConnectionURL", "jdbc:derby:;databaseName=" + dir.resolve("metastore_db") + ";create=true");
    site.put("datanucleus.schema.autoCreateAll", "true");
    site.put("hive.metastore.schema.verification", "false");
    site.put("hive.metastore.warehouse.dir", dir.resolve("warehouse").toUri().toString());
    site.put("hive.metastore.warehouse.external.dir", dir.resolve("external").toUri().toString());
    site.put("hive.exec.scratchdir", dir.resolve("scratch").toString());
    site.put("hive.exec.local.scratchdir", dir.resolve("local-scratch").toString());
    site.put("hive.querylog.location", dir.resolve("querylog").toString());
    site.put("hive.server2.enable.doAs", "false");
    site.put("hive.support.concurrency", "false");
    site.put("hive.txn.manager", "org.apache.hadoop.hive.ql.lockmgr.DummyTxnManager");
    site.put("hive.stats.autogather", "false");
    site.put("hive.stats.column.autogather", "false");
    return site;
  }

  /** A log4j2.properties that logs INFO and above to {@code file}, appending. */
  public static String logToFile(Path file) {
    return String.join("\n",
        "status = WARN",
        "appender.file.type = File",
        "appender.file.name = file",
        "appender.file.fileName = " + file,
        "appender.file.append = true",
        "appender.file.layout.type = PatternLayout",
        "appender.file.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%t] %c{1}: %m%n",
        "rootLogger.level = INFO",
        "rootLogger.appenderRef.file.ref = file",
        "");
  }
}
