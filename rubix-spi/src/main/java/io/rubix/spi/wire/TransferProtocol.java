package io.rubix.spi.wire;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
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
 *            firstBlock:int32 blockCount:int32 nonce:16 bytes (fresh, random)
 *            macLength:int8 mac:bytes      (0 or 32: HMAC-SHA256 of every byte before macLength, keyed with the shared secret)
 * response = magic:int32 version:int16 status:int8
 *            if OK: the blocks from the first one asked for, in order, each as
 *                 frameLength:int32 (&gt; 0) and that many of its bytes, repeated until the block is complete,
 *                 then 0:int32 crc32c:int32 tag           (block end: the block's CRC32C, computed by the sender)
 *               and at the end -1:int32 tag               (end: no more blocks; a block begun and not ended is not served)
 *            otherwise: tag
 * tag      = macLength:int8 mac:bytes      (0 or 32: see below)
 * </pre>
 *
 * A request names one object version: the server serves blocks it has cached for exactly that
 * version. With the {@link #FLAG_FILL} flag an owner that lacks some of them may first fetch them
 * from the source (once, coalesced with its other readers) after checking that the source still has
 * that version ({@link Status#STALE} when it does not). An OK response carries a leading prefix of
 * the blocks asked for (possibly none, when the owner's fetch fails before the first block ends); the
 * reader reads the rest elsewhere. The owner sends a block's bytes as they arrive, from its cache file
 * or, while it fetches them, from the source, so a block's CRC32C follows its bytes. Sizes are bounded; a
 * frame that breaks a bound or does not parse gets {@link Status#BAD_REQUEST}, a frame of another
 * protocol version {@link Status#UNSUPPORTED_VERSION}.
 *
 * <p><b>What the secret protects.</b> With {@code rubix.network.transfer.secret} set on both sides,
 * a request carries an HMAC-SHA256 over all its bytes, nonce included, and the server answers a
 * request whose MAC it verified with response MACs in its tags: each is HMAC-SHA256 over
 * {@link #RESPONSE_LABEL}, the previous tag's MAC (for the first one: the request's MAC), and every
 * response byte after the previous tag up to this tag's macLength (status, frame lengths, block bytes,
 * CRC32Cs). A block's tag therefore authenticates the whole answer up to that block's end and binds it
 * to the one request it answers: bytes served by whoever else holds the port (a local process that
 * binds it while the daemon restarts, a host that took the owner's address) and a recorded response
 * replayed for another request are rejected, and the reader verifies a block's tag before it hands any
 * byte of the block on (it holds the block in memory until then). A reader with a secret treats an OK,
 * NOT_CACHED, STALE or BAD_REQUEST response without a valid MAC as a failure of that peer. Every answer
 * to an authorized request carries a MAC; answers to a request the server could not parse or
 * authorize (BAD_REQUEST, UNAUTHORIZED, UNSUPPORTED_VERSION) cannot, and need none: they only make the
 * reader read the source. The secret does not make the transfer confidential (the bytes cross
 * the network in clear), does not tell one node of the cluster from another (every holder of the
 * secret can serve anything), and does not stop anyone who can reach or hold the port from refusing
 * or delaying answers (the reader then reads the source, a cost, never wrong bytes).
 *
 * <p><b>Without a secret</b> requests and responses carry no MAC (macLength 0) and every block is only
 * checked against the CRC32C in the response: that detects corruption on the wire, not forgery. Anyone
 * who can reach the port reads any block the node has cached, and anyone who can bind the port or
 * sit on the path can make readers return bytes of their choosing. Run without a secret only on a
 * network where every host and every local user of the nodes is trusted with the data.
 *
 * <p><b>With TLS</b> ({@code rubix.network.transfer.tls.enabled}) these same bytes travel inside a TLS
 * connection (TLSv1.3 or TLSv1.2): the transfer becomes confidential, readers take answers only
 * from an owner whose certificate their trust store vouches for and names the host they connected to,
 * and with {@code client.auth=required} an owner reads no request of a reader without a certificate
 * it trusts. TLS changes nothing in this format, and the secret's MACs still bind each answer to its
 * request. A frame that starts like a TLS record (one end speaks TLS, the other does not) is refused
 * as a bad magic that says so.
 *
 * <p>Version 4 (this one) sends blocks in frames with each block's CRC32C and tag after its bytes, so an
 * owner can send bytes as they arrive from the source; version 3 added the request nonce and the
 * response MAC; version 2 added the flags
 * byte, partial responses and the STALE and UNSUPPORTED_VERSION statuses. Peers of other versions
 * are refused with UNSUPPORTED_VERSION, and a reader treats such an answer as a failed peer.
 */
public final class TransferProtocol {
  public static final int MAGIC = 0x52425854; // "RBXT"
  public static final short VERSION = 4;
  /** Request flag: the owner may fetch blocks it lacks from the source before answering. */
  public static final int FLAG_FILL = 1;
  /** The frame length that ends a block in an OK response; its CRC32C and tag follow. */
  public static final int BLOCK_END = 0;
  /** The frame length that ends an OK response; a tag follows. */
  public static final int END = -1;
  /** Most blocks one request may ask for. */
  public static final int MAX_BLOCKS = 64;
  /** Longest path or ETag, in UTF-8 bytes. */
  public static final int MAX_PATH_BYTES = 4096;
  public static final int MAX_ETAG_BYTES = 1024;
  public static final int MAC_BYTES = 32;
  /** Random bytes every request carries, so that no two requests (and their MACs) are alike. */
  public static final int NONCE_BYTES = 16;
  /** The first bytes a response MAC covers: a response MAC is never a valid request MAC. */
  static final byte[] RESPONSE_LABEL = "RBXT response".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom NONCES = new SecureRandom();

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

  /** A response that fails verification: a missing or wrong MAC, or a block whose bytes do not match their CRC32C. */
  public static final class BadResponseException extends ProtocolException {
    private static final long serialVersionUID = 1L;

    public BadResponseException(String message) {
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

  /**
   * A parsed request and whether its MAC matched the server's secret (always true when the server
   * has none); {@code mac} is the verified request MAC a response MAC binds to, or null when the
   * server has no secret or the request is not authorized.
   */
  public record Received(Request request, boolean authorized, byte[] mac) {
    public Received {
      requireNonNull(request, "request is null");
      mac = mac == null ? null : mac.clone();
    }

    /** A response MAC bound to this request, or null when the response carries none. */
    public Mac responseMac(byte[] secret) {
      return secret == null || mac == null ? null : TransferProtocol.responseMac(secret, mac);
    }
  }

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
      byte[] nonce = new byte[NONCE_BYTES];
      NONCES.nextBytes(nonce);
      out.write(nonce);
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
    DataInputStream body = new DataInputStream(new FilterInputStream(in) {
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
      throw new ProtocolException("Bad magic " + Integer.toHexString(magic) + tlsRecordNote(magic));
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
    body.readFully(new byte[NONCE_BYTES]);
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
    Request request = new Request(objectVersion, blockSize, firstBlock, blockCount, (flags & FLAG_FILL) != 0);
    return new Received(request, authorized, secret != null && authorized ? mac : null);
  }

  /** The MAC of a request {@link #encode} signed with a secret: its last {@link #MAC_BYTES} bytes. */
  public static byte[] requestMac(byte[] request) {
    if (request.length < MAC_BYTES + 1 || (request[request.length - MAC_BYTES - 1] & 0xff) != MAC_BYTES) {
      throw new IllegalArgumentException("Not a signed request");
    }
    return Arrays.copyOfRange(request, request.length - MAC_BYTES, request.length);
  }

  /**
   * The MAC of the response to the request whose MAC is {@code requestMac}, ready for the response's
   * bytes before its first tag ({@link Mac#update}); {@link #tag} ends each segment with it.
   */
  public static Mac responseMac(byte[] secret, byte[] requestMac) {
    Mac mac = hmac(secret);
    seed(mac, requestMac);
    return mac;
  }

  private static void seed(Mac mac, byte[] previous) {
    mac.update(RESPONSE_LABEL);
    mac.update(previous);
  }

  /**
   * A tag: the MAC of the response bytes since the previous tag, or a zero length when {@code mac} is
   * null. {@code mac} is then ready for the bytes after the tag (seeded with this tag's MAC).
   */
  public static byte[] tag(Mac mac) {
    if (mac == null) {
      return new byte[] {0};
    }
    byte[] tag = new byte[1 + MAC_BYTES];
    tag[0] = MAC_BYTES;
    try {
      mac.doFinal(tag, 1);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 failed", e);
    }
    seed(mac, Arrays.copyOfRange(tag, 1, tag.length));
    return tag;
  }

  /**
   * Reads a tag and, with {@code mac} (which has seen every response byte since the previous tag),
   * checks it; without, skips it. {@code mac} is then ready for the bytes after the tag.
   *
   * @throws BadResponseException when the MAC is missing or wrong
   */
  public static void verifyTag(DataInputStream in, Mac mac, String what) throws IOException {
    int length = in.readUnsignedByte();
    if (mac == null) {
      if (length != 0 && length != MAC_BYTES) {
        throw new ProtocolException("Bad response MAC length " + length + " in " + what);
      }
      in.readFully(new byte[length]);
      return;
    }
    if (length != MAC_BYTES) {
      throw new BadResponseException((length == 0 ? "No response MAC" : "Bad response MAC length " + length) + " in " + what);
    }
    byte[] received = new byte[MAC_BYTES];
    in.readFully(received);
    if (!MessageDigest.isEqual(received, mac.doFinal())) {
      throw new BadResponseException("Wrong response MAC in " + what);
    }
    seed(mac, received);
  }

  /** A response's first bytes: magic, version and {@code status}. */
  public static byte[] encodeStatus(Status status) {
    ByteBuffer bytes = ByteBuffer.allocate(7);
    bytes.putInt(MAGIC).putShort(VERSION).put((byte) status.code());
    return bytes.array();
  }

  /** What a wrong magic says when it is the start of a TLS record (handshake or alert, TLS 1.x): one end speaks TLS, the other does not. */
  private static String tlsRecordNote(int magic) {
    int type = magic >>> 24;
    int major = (magic >>> 16) & 0xff;
    return (type == 0x15 || type == 0x16) && major == 3 ? " (a TLS record: rubix.network.transfer.tls.enabled differs between the two ends)" : "";
  }

  /** Reads a response's magic, version and status. */
  public static Status readStatus(DataInputStream in) throws IOException {
    int magic = in.readInt();
    if (magic != MAGIC) {
      throw new ProtocolException("Bad magic " + Integer.toHexString(magic) + " in transfer response" + tlsRecordNote(magic));
    }
    short version = in.readShort();
    if (version != VERSION) {
      throw new UnsupportedVersionException("The peer speaks transfer protocol version " + version + ", this reader " + VERSION);
    }
    return Status.of(in.readUnsignedByte());
  }

  public static byte[] mac(byte[] secret, byte[] message) {
    return hmac(secret).doFinal(message);
  }

  private static Mac hmac(byte[] secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac;
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
