package io.rubix.hive.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Writes Hadoop-style configuration files (core-site.xml, hive-site.xml) as a user would. */
public final class HadoopConfFile {
  private HadoopConfFile() {}

  public static void write(Path file, Map<String, String> properties) throws IOException {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    properties.forEach((name, value) -> xml.append("  <property><name>").append(escape(name))
        .append("</name><value>").append(escape(value)).append("</value></property>\n"));
    xml.append("</configuration>\n");
    Files.writeString(file, xml, StandardCharsets.UTF_8);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
