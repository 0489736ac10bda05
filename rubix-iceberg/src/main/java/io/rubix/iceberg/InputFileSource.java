package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.Source;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * The source of one cached Iceberg file: each ranged read opens a new stream of the delegate FileIO's
 * {@link InputFile} and reads the range with one positioned read where the stream is {@link RangeReadable}
 * (S3FileIO, GCSFileIO, ADLSFileIO: one ranged GET), else by seeking and reading (HadoopFileIO). The
 * delegate's exceptions, unchecked in Iceberg, become {@link IOException}s naming the file and the range.
 */
final class InputFileSource implements Source {
  private final InputFile file;

  InputFileSource(InputFile file) {
    this.file = requireNonNull(file, "file is null");
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      if (in instanceof RangeReadable ranged) {
        ranged.readFully(position, buffer, offset, length);
      } else {
        in.seek(position);
        readFully(in, file.location(), position, buffer, offset, length);
      }
    } catch (NotFoundException e) {
      FileNotFoundException notFound = new FileNotFoundException(what(position, length) + ": " + e.getMessage());
      notFound.initCause(e);
      throw notFound;
    } catch (UncheckedIOException e) {
      throw new IOException(what(position, length) + " failed", e.getCause());
    } catch (RuntimeException e) {
      throw new IOException(what(position, length) + " failed", e);
    }
  }

  /** Reads {@code length} bytes of {@code location} into {@code buffer[offset..]} from {@code in}, positioned at {@code position}. */
  static void readFully(SeekableInputStream in, String location, long position, byte[] buffer, int offset, int length) throws IOException {
    int read = 0;
    while (read < length) {
      int n = in.read(buffer, offset + read, length - read);
      if (n < 0) {
        throw new EOFException("Source " + location + " ended at " + (position + read) + ", reading [" + position + ", +" + length + ")");
      }
      read += n;
    }
  }

  private String what(long position, int length) {
    return "Reading " + file.location() + " [" + position + ", +" + length + ") from " + file.getClass().getSimpleName();
  }
}
