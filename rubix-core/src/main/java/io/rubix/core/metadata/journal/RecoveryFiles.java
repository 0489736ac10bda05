package io.rubix.core.metadata.journal;

import io.rubix.spi.metadata.DataFileLayout;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file operations journal recovery performs on cache directories, so tests can inject the faults
 * a real disk shows (an unreadable directory, a file that cannot be deleted) even when they run as
 * root, where permissions stop nothing.
 */
public interface RecoveryFiles {
  /** Entries of {@code dir}; iterating may throw {@link java.nio.file.DirectoryIteratorException}. */
  DirectoryStream<Path> list(Path dir) throws IOException;

  /**
   * Deletes {@code file} if it exists; a data file is truncated to zero first, as {@link DataFiles}
   * drops one: a reader JVM that still holds it open then sees it dropped (short of its live length),
   * writes no more into it, and its blocks are freed now instead of when that reader closes it.
   */
  void delete(Path file) throws IOException;

  /** The size of {@code file} in bytes. */
  long size(Path file) throws IOException;

  RecoveryFiles DEFAULT = new RecoveryFiles() {
    @Override
    public DirectoryStream<Path> list(Path dir) throws IOException {
      return Files.newDirectoryStream(dir);
    }

    @Override
    public void delete(Path file) throws IOException {
      if (file.getFileName().toString().endsWith(DataFileLayout.DATA_SUFFIX)) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
          channel.truncate(0);
        } catch (NoSuchFileException e) {
          return;
        } catch (IOException e) {
          // not a regular file this process can write (a directory, a link): nobody writes cache data into it; unlink it alone
        }
      }
      Files.deleteIfExists(file);
    }

    @Override
    public long size(Path file) throws IOException {
      return Files.size(file);
    }
  };
}
