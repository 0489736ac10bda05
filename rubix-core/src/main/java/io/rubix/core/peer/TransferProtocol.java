package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The block-transfer protocol between a reader and the BookKeeper of the node that owns a split.
 * One request per connection, all integers big-endian.
 *
 * <pre>
 * request  = magic:int32 version:int16 flags:int8 blockSize:int32
 *            pathLength:int16 path:utf8 length:int64 modificationTime:int64 etagLength:int16 etag:utf8
 *            firstBlock:int32 blockCount:int32
 *            macLength:int8 mac:bytes      (0 or 32: HMAC-SHA256 of every byte before macLength, keyed with the shared secret)
 * response = magic:int32 version:int16 status:int8
 *            if OK: blockCount:int32, then per block length:int32 crc32c:int32, then the blocks' bytes in order
 * </pre>
 *
 * A request names one object version: the server serves blocks it has cached for exactly that
 * version. With the {@link #FLAG_FILL} flag an owner that lacks some of them may first fetch them
 * from the source (once, coalesced with its other readers) after checking that the source still has
 * that version ({@link Status#STALE} when it does not). An OK response carries a leading prefix of
 * the blocks asked for (at least one); the reader reads the rest elsewhere. Sizes are bounded; a
 * frame that breaks a bound or does not parse gets {@link Status#BAD_REQUEST}, a frame of another
 * protocol version {@link Status#UNSUPPORTED_VERSION}.
 *
 * <p>Version 2 (this one) added the flags byte, partial responses and the STALE and
 * UNSUPPORTED_VERSION statuses; version 1 peers are refused with UNSUPPORTED_VERSION.
 */
public final class TransferProtocol {
  public static final int MAGIC = 0x52425854; // "RBXT"
  public static final short VERSION = 2;
  /** Request flag: the owner may fetch blocks it lacks from the source before answering. */
  public static final int FLAG_FILL = 1;
  /** Most blocks one request may ask for. */
  public static final int MAX_BLOCKS = 64;
  /** Longest path or ETag, in UTF-8 bytes. */
  public static final int MAX_PATH_BYTES = 4096;
  public static final int MAX_ETAG_BYTES = 1024;
  public static final int MAC_BYTES = 32;

  private TransferProtocol() {}

  public enum Status {
    OK(0), NOT_CACHED(1), BAD_REQUEST(2), UNAUTHORIZED(3), ERROR(4),
    /** The source no longer has the version the request names (changed or deleted): the owner sends no bytes of another version. */
    STALE(5),
    /** The request speaks another protocol version. */
    UNSUPPORTED_VERSION(6);

    private final int code;

    Status(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Status of(int code) throws ProtocolException {
      for (Status status : values()) {
        if (status.code == code) {
          return status;
        }
      }
      throw new ProtocolException("Unknown transfer status " + code);
    }
  }

  /** A frame that breaks the protocol. */
  public static class ProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
      super(message);
    }
  }

  /** A frame of another protocol version. */
  public static final class UnsupportedVersionException extends ProtocolException {
    private static final long serialVersionUID = 1L;

    public UnsupportedVersionException(String message) {
      super(message);
    }
  }

  /**
   * A request for blocks {@code [firstBlock, firstBlock + blockCount)} of {@code version}; with
   * {@code fill} the owner may fetch blocks it lacks from the source first.
   */
  public record Request(ObjectVersion version, int blockSize, int firstBlock, int blockCount, boolean fill) {
    public Request {
      requireNonNull(version, "version is null");
    }

    /** A request for cached blocks only. */
    public Request(ObjectVersion version, int blockSize, int firstBlock, int blockCount) {
      this(version, blockSize, firstBlock, blockCount, false);
    }
  }

  /** A parsed request and whether its MAC matched the server's secret (always true when the server has none). */
  public record Received(Request request, boolean authorized) {}

  /** The request's bytes, with an HMAC when {@code secret} is not null. */
  public static byte[] encode(Request request, byte[] secret) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeShort(VERSION);
      out.writeByte(request.fill() ? FLAG_FILL : 0);
      out.writeInt(request.blockSize());
      writeString(out, request.version().path(), MAX_PATH_BYTES);
      out.writeLong(request.version().length());
      out.writeLong(request.version().modificationTime());
      writeString(out, request.version().etag(), MAX_ETAG_BYTES);
      out.writeInt(request.firstBlock());
      out.writeInt(request.blockCount());
      out.flush();
      if (secret == null) {
        out.writeByte(0);
      } else {
        byte[] mac = mac(secret, bytes.toByteArray());
        out.writeByte(mac.length);
        out.write(mac);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads one request; checks bounds and, when {@code secret} is not null, its MAC.
   *
   * @throws ProtocolException when the frame is malformed or breaks a bound
   * @throws EOFException when the connection ends inside the frame
   */
  public static Received decode(DataInputStream in, byte[] secret) throws IOException {
    ByteArrayOutputStream copy = new ByteArrayOutputStream(256);
    DataInputStream body = new DataInputStream(new java.io.FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          copy.write(b);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
          copy.write(b, off, n);
        }
        return n;
      }
    });
    int magic = body.readInt();
    if (magic != MAGIC) {
      throw new ProtocolException("Bad magic " + Integer.toHexString(magic));
    }
    short version = body.readShort();
    if (version != VERSION) {
      throw new UnsupportedVersionException("Unsupported protocol version " + version + ", this server speaks " + VERSION);
    }
    int flags = body.readUnsignedByte();
    if ((flags & ~FLAG_FILL) != 0) {
      throw new ProtocolException("Unknown request flags " + Integer.toHexString(flags));
    }
    int blockSize = body.readInt();
    String path = readString(body, MAX_PATH_BYTES);
    long length = body.readLong();
    long modificationTime = body.readLong();
    String etag = readString(body, MAX_ETAG_BYTES);
    int firstBlock = body.readInt();
    int blockCount = body.readInt();
    byte[] signed = copy.toByteArray();
    int macLength = in.readUnsignedByte();
    if (macLength != 0 && macLength != MAC_BYTES) {
      throw new ProtocolException("Bad MAC length " + macLength);
    }
    byte[] mac = new byte[macLength];
    in.readFully(mac);
    if (blockSize <= 0 || path.isEmpty() || length < 0 || firstBlock < 0 || blockCount < 1 || blockCount > MAX_BLOCKS) {
      throw new ProtocolException("Request out of bounds: block size " + blockSize + ", blocks [" + firstBlock + ", +" + blockCount + ")");
    }
    ObjectVersion objectVersion = new ObjectVersion(path, length, modificationTime, etag);
    if ((long) firstBlock + blockCount > (length + blockSize - 1) / blockSize) {
      throw new ProtocolException("Blocks [" + firstBlock + ", +" + blockCount + ") are outside " + objectVersion);
    }
    boolean authorized = secret == null || (macLength == MAC_BYTES && MessageDigest.isEqual(mac, mac(secret, signed)));
    return new Received(new Request(objectVersion, blockSize, firstBlock, blockCount, (flags & FLAG_FILL) != 0), authorized);
  }

  /** The response header: status, and for OK the blocks' lengths and CRC32Cs. */
  public static byte[] encodeResponse(Status status, int[] lengths, int[] crcs) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + (lengths == null ? 0 : 8 * lengths.length));
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeShort(VERSION);
      out.writeByte(status.code());
      if (status == Status.OK) {
        out.writeInt(lengths.length);
        for (int i = 0; i < lengths.length; i++) {
          out.writeInt(lengths[i]);
          out.writeInt(crcs[i]);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Reads a response's magic, version and status. */
  public static Status readStatus(DataInputStream in) throws IOException {
    int magic = in.readInt();
    if (magic != MAGIC) {
      throw new ProtocolException("Bad magic " + Integer.toHexString(magic) + " in transfer response");
    }
    short version = in.readShort();
    if (version != VERSION) {
      throw new UnsupportedVersionException("The peer speaks transfer protocol version " + version + ", this reader " + VERSION);
    }
    return Status.of(in.readUnsignedByte());
  }

  public static byte[] mac(byte[] secret, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac.doFinal(message);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  public static byte[] secret(String value) {
    return value == null || value.isEmpty() ? null : value.getBytes(StandardCharsets.UTF_8);
  }

  private static void writeString(DataOutputStream out, String value, int max) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > max) {
      throw new IllegalArgumentException("Longer than " + max + " bytes: " + value);
    }
    out.writeShort(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInputStream in, int max) throws IOException {
    int length = in.readUnsignedShort();
    if (length > max) {
      throw new ProtocolException("String of " + length + " bytes exceeds " + max);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    String value = new String(bytes, StandardCharsets.UTF_8);
    if (!Arrays.equals(value.getBytes(StandardCharsets.UTF_8), bytes)) {
      throw new ProtocolException("Malformed UTF-8");
    }
    return value;
  }
}
