package io.rubix.bookkeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Samples the disk space a cache directory really takes, like {@code du}: the bytes allocated to each
 * file ({@code st_blocks * 512} from {@code stat}; the apparent size of a sparse file would overstate
 * it), split into cache data ({@code .blocks}) and metadata ({@code .meta}). Data files that were
 * deleted but are still held open by this JVM (found through {@code /proc/<pid>/fd}) count as data:
 * their blocks stay allocated until the last descriptor closes.
 */
final class DiskUsageSampler {
  private final Path dir;
  private final long pid = ProcessHandle.current().pid();
  int samples;
  long maxData;
  long maxMeta;
  String worst = "";

  DiskUsageSampler(Path dir) {
    this.dir = dir.toAbsolutePath();
  }

  void sample() throws IOException, InterruptedException {
    List<String> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(p -> p.toString().endsWith(".blocks") || p.toString().endsWith(".meta")).forEach(p -> files.add(p.toString()));
    } catch (UncheckedIOException | IOException e) {
      return; // a file vanished during the walk (eviction): skip this sample
    }
    Path fds = Path.of("/proc/" + pid + "/fd");
    if (Files.isDirectory(fds)) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
        for (Path fd : entries) {
          try {
            String target = Files.readSymbolicLink(fd).toString();
            if (target.startsWith(dir.toString()) && target.endsWith(".blocks (deleted)")) {
              files.add(fd.toString());
            }
          } catch (IOException e) {
            // closed meanwhile
          }
        }
      }
    }
    if (files.isEmpty()) {
      samples++;
      return;
    }
    List<String> command = new ArrayList<>(List.of("stat", "-L", "-c", "%b %B %n"));
    command.addAll(files);
    Process stat = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!stat.waitFor(10, TimeUnit.SECONDS)) {
      stat.destroyForcibly();
      return;
    }
    long data = 0;
    long meta = 0;
    StringBuilder detail = new StringBuilder();
    for (String line : out.split("\n")) {
      String[] fields = line.split(" ", 3);
      if (fields.length < 3) {
        continue; // a file deleted between the listing and stat
      }
      long bytes = Long.parseLong(fields[0]) * Long.parseLong(fields[1]);
      if (fields[2].endsWith(".meta")) {
        meta += bytes;
      } else {
        data += bytes;
        detail.append(fields[2].startsWith("/proc/") ? "deleted-but-open " : "").append(fields[2].substring(fields[2].lastIndexOf('/') + 1))
            .append('=').append(bytes).append(' ');
      }
    }
    samples++;
    if (data > maxData) {
      maxData = data;
      worst = detail.toString();
    }
    maxMeta = Math.max(maxMeta, meta);
  }
}
