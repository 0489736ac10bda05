package io.rubix.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** The executor-host list as the file cluster manager reads it: one host per line, replaced atomically. */
final class NodeListFile {
  private NodeListFile() {}

  static void write(Path file, List<String> hosts) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path temp = Files.createTempFile(parent, ".rubix-nodes", ".tmp");
    try {
      Files.write(temp, hosts, StandardCharsets.UTF_8);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
