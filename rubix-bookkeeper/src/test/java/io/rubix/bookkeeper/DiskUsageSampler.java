package io.rubix.bookkeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Samples the disk space a cache directory really takes, like {@code du}: the bytes allocated to each
 * file ({@code st_blocks * 512} from {@code stat}; the apparent size of a sparse file would overstate
 * it), split into cache data ({@code .blocks}) and metadata ({@code .meta}). Data files that were
 * deleted but are still held open by this JVM, or by a process {@linkplain #watch watched}, (found
 * through {@code /proc/<pid>/fd}) count as data: their blocks stay allocated until the last descriptor
 * closes. A file is counted once (by inode), however many processes hold it; a descriptor that no
 * longer names the same deleted file after {@code stat} (closed, its number reused) is not counted.
 * Deleted files held only by processes neither this JVM nor watched are not seen. A sample is not
 * atomic: files are listed, then stat'ed one after the other.
 */
final class DiskUsageSampler {
  private final Path dir;
  private final Set<Long> pids = ConcurrentHashMap.newKeySet();
  /** Of the current sample: /proc/<pid>/fd/<n> -> name of the deleted data file. */
  private final Map<String, String> deletedTargets = new HashMap<>();
  int samples;
  long maxData;
  /** Data bytes of the last sample, and its files with their allocated bytes. */
  long lastData;
  String lastDetail = "";
  long maxMeta;
  String worst = "";
  /** When the sample with {@link #maxData} was taken (wall clock, ms). */
  long worstAtMillis;

  DiskUsageSampler(Path dir) {
    this.dir = dir.toAbsolutePath();
    pids.add(ProcessHandle.current().pid());
  }

  /** Also counts the deleted data files that process {@code pid} (same user) holds open, while it runs. */
  void watch(long pid) {
    pids.add(pid);
  }

  void unwatch(long pid) {
    pids.remove(pid);
  }

  void sample() throws IOException, InterruptedException {
    List<String> files = new ArrayList<>();
    deletedTargets.clear();
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(p -> p.toString().endsWith(".blocks") || p.toString().endsWith(".meta")).forEach(p -> files.add(p.toString()));
    } catch (UncheckedIOException | IOException e) {
      return; // a file vanished during the walk (eviction): skip this sample
    }
    for (long pid : pids) {
      addDeletedOpenDataFiles(pid, files);
    }
    if (files.isEmpty()) {
      samples++;
      lastData = 0;
      lastDetail = "";
      return;
    }
    List<String> command = new ArrayList<>(List.of("stat", "-L", "-c", "%b %B %d:%i %n"));
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
    Set<String> inodes = new HashSet<>();
    for (String line : out.split("\n")) {
      String[] fields = line.split(" ", 4);
      if (fields.length < 4 || !inodes.add(fields[2])) {
        continue; // a file deleted between the listing and stat, or one already counted
      }
      long bytes = Long.parseLong(fields[0]) * Long.parseLong(fields[1]);
      String name = fields[3];
      if (name.startsWith("/proc/") && !stillDeleted(name)) {
        // the descriptor was closed and its number reused (for a file the walk may not have seen) between listing and stat
        continue;
      }
      if (name.endsWith(".meta")) {
        meta += bytes;
      } else {
        data += bytes;
        if (bytes == 0) {
          continue; // a dropped file held open: truncated, nothing allocated
        }
        detail.append(name.startsWith("/proc/") ? "deleted-but-open(pid " + name.split("/")[2] + ") " + deletedTargets.get(name)
            : name.substring(name.lastIndexOf('/') + 1)).append('=').append(bytes).append(' ');
      }
    }
    samples++;
    lastData = data;
    lastDetail = detail.toString();
    if (data > maxData) {
      maxData = data;
      worst = detail.toString();
      worstAtMillis = System.currentTimeMillis();
    }
    maxMeta = Math.max(maxMeta, meta);
  }

  /** Whether descriptor {@code fd} still names the deleted data file it named when it was listed. */
  private boolean stillDeleted(String fd) {
    try {
      String target = Files.readSymbolicLink(Path.of(fd)).toString();
      return target.endsWith(deletedTargets.get(fd) + " (deleted)");
    } catch (IOException e) {
      return false;
    }
  }

  private void addDeletedOpenDataFiles(long pid, List<String> files) throws IOException {
    Path fds = Path.of("/proc/" + pid + "/fd");
    if (!Files.isDirectory(fds)) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
      for (Path fd : entries) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith(dir.toString()) && target.endsWith(".blocks (deleted)")) {
            files.add(fd.toString());
            deletedTargets.put(fd.toString(), target.substring(target.lastIndexOf('/') + 1, target.length() - " (deleted)".length()));
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    } catch (IOException | DirectoryIteratorException e) {
      // the process ended, or its descriptors are not ours to read: nothing seen
    }
  }
}
