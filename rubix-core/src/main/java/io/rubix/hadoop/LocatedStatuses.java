package io.rubix.hadoop;

import io.rubix.core.compat.HadoopApi;
import java.io.IOException;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;

/** Listings of the wrapped file system with the block locations of the cache cluster. */
final class LocatedStatuses {
  private LocatedStatuses() {}

  @FunctionalInterface
  interface Locator {
    /** The locations of {@code status}, or null to keep the wrapped file system's. */
    BlockLocation[] locate(FileStatus status) throws IOException;
  }

  static RemoteIterator<LocatedFileStatus> relocate(RemoteIterator<LocatedFileStatus> listing, Locator locator) {
    return new RemoteIterator<>() {
      @Override
      public boolean hasNext() throws IOException {
        return listing.hasNext();
      }

      @Override
      public LocatedFileStatus next() throws IOException {
        LocatedFileStatus status = listing.next();
        if (!status.isFile()) {
          return status;
        }
        BlockLocation[] locations = locator.locate(status);
        if (locations == null) {
          return status;
        }
        // keep the ETag: an open with this status must resolve the same object version as a getFileStatus
        String etag = HadoopApi.etagOf(status);
        return etag != null ? EtagLocatedFileStatus.of(status, locations, etag) : new LocatedFileStatus(status, locations);
      }
    };
  }

  /** A located status that keeps its store's ETag. */
  private static final class EtagLocatedFileStatus extends LocatedFileStatus implements EtagSource {
    private static final long serialVersionUID = 1L;
    private final String etag;

    private EtagLocatedFileStatus(FileStatus status, BlockLocation[] locations, String etag) {
      super(status, locations);
      this.etag = etag;
    }

    /** Typed as a plain located status, so that code calling this loads on Hadoop without {@code EtagSource}. */
    static LocatedFileStatus of(FileStatus status, BlockLocation[] locations, String etag) {
      return new EtagLocatedFileStatus(status, locations, etag);
    }

    @Override
    public String getEtag() {
      return etag;
    }

    @Override
    public boolean equals(Object o) {
      return super.equals(o);
    }

    @Override
    public int hashCode() {
      return super.hashCode();
    }
  }
}
