package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * The delegate's {@link OutputFile}, forgetting what the cache holds of its location when a stream
 * is created and again when it is closed, after the new bytes are in the store: a read of the old
 * object racing the write cannot leave its blocks behind for the new one.
 */
final class ForgettingOutputFile implements OutputFile {
  private final OutputFile delegate;
  private final Consumer<String> forget;
  private final Supplier<InputFile> input;

  /**
   * @param forget drops the cached versions of a location
   * @param input the file written, to read it back through the cache
   */
  ForgettingOutputFile(OutputFile delegate, Consumer<String> forget, Supplier<InputFile> input) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.forget = requireNonNull(forget, "forget is null");
    this.input = requireNonNull(input, "input is null");
  }

  @Override
  public PositionOutputStream create() {
    forget.accept(location());
    return new ForgettingStream(delegate.create());
  }

  @Override
  public PositionOutputStream createOrOverwrite() {
    forget.accept(location());
    return new ForgettingStream(delegate.createOrOverwrite());
  }

  @Override
  public String location() {
    return delegate.location();
  }

  @Override
  public InputFile toInputFile() {
    return input.get();
  }

  @Override
  public String toString() {
    return "ForgettingOutputFile[" + delegate + "]";
  }

  private final class ForgettingStream extends PositionOutputStream {
    private final PositionOutputStream out;

    ForgettingStream(PositionOutputStream out) {
      this.out = requireNonNull(out, "out is null");
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public long storedLength() throws IOException {
      return out.storedLength();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws IOException {
      out.write(buffer, offset, length);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      try {
        out.close();
      } finally {
        forget.accept(location());
      }
    }
  }
}
