package io.rubix.core.metadata;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The file operations journal recovery performs on cache directories, so tests can inject the faults
 * a real disk shows (an unreadable directory, a file that cannot be deleted) even when they run as
 * root, where permissions stop nothing.
 */
interface RecoveryFiles {
  /** Entries of {@code dir}; iterating may throw {@link java.nio.file.DirectoryIteratorException}. */
  DirectoryStream<Path> list(Path dir) throws IOException;

  /** Deletes {@code file} if it exists. */
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
      Files.deleteIfExists(file);
    }

    @Override
    public long size(Path file) throws IOException {
      return Files.size(file);
    }
  };
}
