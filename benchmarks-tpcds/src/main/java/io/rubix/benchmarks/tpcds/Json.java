package io.rubix.benchmarks.tpcds;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

/** How the benchmark and its configuration JVMs exchange {@link RunSpec} and {@link RunResult}: JSON, by Jackson (Spark brings it). */
final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static <T> T read(InputStream in, Class<T> type) throws IOException {
    return MAPPER.readValue(in, type);
  }

  static <T> T read(Path file, Class<T> type) throws IOException {
    return MAPPER.readValue(file.toFile(), type);
  }

  /** Writes {@code value} and closes {@code out}. */
  static void write(OutputStream out, Object value) throws IOException {
    MAPPER.writeValue(out, value);
  }

  static void write(Path file, Object value) throws IOException {
    MAPPER.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), value);
  }
}
