package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.DataFileLayout;
import java.nio.file.Path;
import java.util.List;

/** The metadata service's view of {@link DataFileLayout}: which disk and file each object version's blocks go to. */
final class CacheLayout {
  static final String DATA_SUFFIX = DataFileLayout.DATA_SUFFIX;

  private final DataFileLayout layout;

  CacheLayout(List<Path> roots) {
    this.layout = new DataFileLayout(roots);
  }

  List<Path> roots() {
    return layout.roots();
  }

  int diskOf(ObjectVersion version) {
    return layout.diskOf(version);
  }

  Path dataFile(ObjectVersion version, int disk, long generation) {
    return layout.dataFile(version, disk, generation);
  }

  static String sha256Hex(String text) {
    return DataFileLayout.sha256Hex(text);
  }
}
