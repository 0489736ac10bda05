package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.DataFileLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataFileLayoutTest {
  @TempDir
  Path disk0;
  @TempDir
  Path disk1;

  private static List<String> hostilePaths() {
    List<String> paths = new ArrayList<>(List.of(
        "s3a://bucket/../../../../etc/passwd",
        "../../../../etc/passwd",
        "/../..",
        "..",
        ".",
        "/",
        "file:///tmp/../../root/.ssh/id_rsa",
        "s3a://bucket/a/./b/../../c",
        "s3a://bucket/dir/..\\..\\windows",
        "s3a://bucket/with space/and\ttab/and\nnewline",
        "s3a://bucket/nul\u0000byte",
        "s3a://bucket/ünïcödé/日本語/😀.orc",
        "s3a://bucket/%2e%2e/%2F/encoded",
        "s3a://bucket/" + "x".repeat(5000),
        "s3a://bucket/" + "../".repeat(2000),
        "~/home",
        "$HOME/${env}/`cmd`",
        "C:\\Windows\\System32"));
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      StringBuilder path = new StringBuilder("s3a://b/");
      int length = 1 + random.nextInt(300);
      for (int j = 0; j < length; j++) {
        path.appendCodePoint(random.nextInt(8) == 0 ? '/' : random.nextInt(8) == 0 ? '.' : 1 + random.nextInt(0x2FFFF));
      }
      paths.add(path.toString());
    }
    return paths;
  }

  @Test
  void dataFilesStayInsideTheirRoot() {
    DataFileLayout layout = new DataFileLayout(List.of(disk0, disk1));
    for (String remote : hostilePaths()) {
      ObjectVersion version = new ObjectVersion(remote, 10, 20, "etag");
      int disk = layout.diskOf(version);
      assertThat(disk).isBetween(0, 1);
      Path root = layout.roots().get(disk);
      Path file = layout.dataFile(version, disk, Long.MAX_VALUE);
      assertThat(file.normalize()).as("data file of %s", remote).isEqualTo(file);
      assertThat(file.getParent().getParent()).as("data file of %s", remote).isEqualTo(root);
      assertThat(file.getFileName().toString()).matches("[0-9a-f]{64}-[0-9]+\\.blocks");
      assertThat(file.getParent().getFileName().toString()).isEqualTo(file.getFileName().toString().substring(0, 2));
    }
  }

  @Test
  void distinctVersionsAndGenerationsMapToDistinctFiles() {
    DataFileLayout layout = new DataFileLayout(List.of(disk0));
    List<ObjectVersion> versions = new ArrayList<>();
    for (String remote : hostilePaths()) {
      versions.add(new ObjectVersion(remote, 10, 20, "etag"));
    }
    // versions that differ in one field only, or whose fields could run together in a naive key
    versions.add(new ObjectVersion("s3a://b/k", 1, 23, ""));
    versions.add(new ObjectVersion("s3a://b/k", 12, 3, ""));
    versions.add(new ObjectVersion("s3a://b/k", 12, 3, "x"));
    versions.add(new ObjectVersion("s3a://b/k", 12, 4, "x"));
    versions.add(new ObjectVersion("s3a://b/k|12", 3, 0, ""));
    versions.add(new ObjectVersion("s3a://b/k", 12, 3, "|0"));
    versions.add(new ObjectVersion("s3a://b/k|12|3|", 0, 0, ""));
    versions.add(new ObjectVersion("s3a://b/k", 0, 0, "12|3|"));
    Set<Path> files = new HashSet<>();
    for (ObjectVersion version : versions) {
      assertThat(files.add(layout.dataFile(version, 0, 1))).as("file of %s", version).isTrue();
    }
    ObjectVersion one = versions.get(0);
    assertThat(layout.dataFile(one, 0, 1)).isEqualTo(layout.dataFile(one, 0, 1));
    assertThat(layout.dataFile(one, 0, 2)).isNotEqualTo(layout.dataFile(one, 0, 1));
    assertThat(layout.dataFile(one, 0, 12)).isNotEqualTo(layout.dataFile(one, 0, 1));
  }

  @Test
  void aClientAcceptsOnlyTheNameItsLayoutGivesTheVersion() throws Exception {
    DataFileLayout layout = new DataFileLayout(List.of(disk0, disk1));
    ObjectVersion version = new ObjectVersion("s3a://b/k", 10, 20, "etag");
    ObjectVersion other = new ObjectVersion("s3a://b/k", 10, 21, "etag");
    Path own = layout.dataFile(version, layout.diskOf(version), 7);
    assertThat(layout.checkDataFile(version, own.toString())).isEqualTo(own);
    for (String refused : List.of(layout.dataFile(other, layout.diskOf(other), 7).toString(), "/etc/passwd",
        own.getParent().getParent().resolve("..").resolve(own.getParent().getFileName()).resolve(own.getFileName()).toString(),
        disk0.getFileName().resolve(own.getParent().getFileName()).resolve(own.getFileName()).toString(),
        own.toString().replace("-7.blocks", "-0.blocks"), own + "/x")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> layout.checkDataFile(version, refused)).as(refused)
          .isInstanceOf(java.io.IOException.class).hasMessageContaining("Refusing cache data file");
    }
  }
}
