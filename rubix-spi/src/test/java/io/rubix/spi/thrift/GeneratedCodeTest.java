package io.rubix.spi.thrift;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The committed Java code must be what bookkeeper.thrift generates: run src/main/thrift/generate.sh after editing the IDL. */
class GeneratedCodeTest {
  private static final Path IDL = Path.of("src/main/thrift/bookkeeper.thrift");
  private static final Path GENERATED = Path.of("src/main/thrift-gen/io/rubix/spi/thrift");

  @Test
  void committedCodeWasGeneratedFromTheCurrentIdl() throws Exception {
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(IDL)));
    assertThat(IdlChecksum.SHA256)
        .as("bookkeeper.thrift changed since the Java code was generated: run rubix-spi/src/main/thrift/generate.sh")
        .isEqualTo(sha);
  }

  @Test
  void regeneratingGivesTheCommittedCode(@TempDir Path out) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(onPath("thrift"), "thrift-compiler is not installed");
    Process process = new ProcessBuilder("bash", "src/main/thrift/generate.sh", out.toString()).inheritIO().start();
    assertThat(process.waitFor()).as("generate.sh exit code").isZero();
    Path regenerated = out.resolve("io/rubix/spi/thrift");
    assertThat(names(regenerated)).isEqualTo(names(GENERATED));
    for (String name : names(GENERATED)) {
      assertThat(Files.readString(regenerated.resolve(name))).as(name).isEqualTo(Files.readString(GENERATED.resolve(name)));
    }
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static boolean onPath(String command) {
    String path = System.getenv("PATH");
    return path != null && Stream.of(path.split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
  }
}
