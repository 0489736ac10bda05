package io.rubix.spi.wire;

import static java.util.Objects.requireNonNull;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mutual challenge-response that opens every connection to a BookKeeper's Thrift port, before any
 * Thrift frame. Both ends prove they hold the node's BookKeeper secret (a file only the cache group can
 * read) without sending it, so only members of the cache group can call the daemon, and a reader never
 * talks to a process that merely answers on the daemon's port.
 *
 * <pre>
 * server → client   challenge = magic:int32 version:int8 serverNonce:16 bytes
 * client → server   response  = magic:int32 version:int8 clientNonce:16 bytes
 *                               HMAC-SHA256(secret, "rubix-bookkeeper-client-v1" serverNonce clientNonce)
 * server → client   proof     = HMAC-SHA256(secret, "rubix-bookkeeper-server-v1" serverNonce clientNonce)
 * </pre>
 *
 * A server that does not accept the response closes the connection without a proof. Fresh nonces on
 * both sides mean a recorded exchange cannot be replayed to either end. The handshake does not encrypt
 * or authenticate the Thrift frames that follow: on loopback (the Thrift port's default bind address)
 * no other user can see or alter them.
 */
public final class ConnectionAuth {
  public static final int MAGIC = 0x52425841; // "RBXA"
  public static final byte VERSION = 1;
  public static final int NONCE_BYTES = 16;
  public static final int MAC_BYTES = 32;
  public static final int CHALLENGE_BYTES = 4 + 1 + NONCE_BYTES;
  public static final int RESPONSE_BYTES = 4 + 1 + NONCE_BYTES + MAC_BYTES;
  /** Shortest secret accepted, in bytes. */
  public static final int MIN_SECRET_BYTES = 16;
  private static final byte[] CLIENT = "rubix-bookkeeper-client-v1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SERVER = "rubix-bookkeeper-server-v1".getBytes(StandardCharsets.US_ASCII);

  private final byte[] secret;
  private final SecureRandom random;

  public ConnectionAuth(byte[] secret, SecureRandom random) {
    requireNonNull(secret, "secret is null");
    if (secret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException("BookKeeper secret too short: " + secret.length + " bytes, at least " + MIN_SECRET_BYTES);
    }
    this.secret = secret.clone();
    this.random = requireNonNull(random, "random is null");
  }

  /** The client's side, on a connected blocking stream pair: answers the challenge and checks the server's proof. */
  public void authenticateServer(InputStream in, OutputStream out) throws IOException {
    DataInputStream data = new DataInputStream(in);
    byte[] challenge = new byte[CHALLENGE_BYTES];
    data.readFully(challenge);
    ByteBuffer parsed = ByteBuffer.wrap(challenge);
    if (parsed.getInt() != MAGIC || parsed.get() != VERSION) {
      throw new IOException("Not a RubiX BookKeeper (or another protocol version): bad authentication challenge");
    }
    byte[] serverNonce = new byte[NONCE_BYTES];
    parsed.get(serverNonce);
    byte[] clientNonce = new byte[NONCE_BYTES];
    random.nextBytes(clientNonce);
    out.write(ByteBuffer.allocate(RESPONSE_BYTES).putInt(MAGIC).put(VERSION).put(clientNonce).put(mac(CLIENT, serverNonce, clientNonce)).array());
    out.flush();
    byte[] proof = new byte[MAC_BYTES];
    try {
      data.readFully(proof);
    } catch (IOException e) {
      throw new IOException("The BookKeeper refused this JVM's secret (is the secret file the daemon's?)", e);
    }
    if (!MessageDigest.isEqual(proof, mac(SERVER, serverNonce, clientNonce))) {
      throw new IOException("The process on the BookKeeper port does not hold the BookKeeper secret: refusing to use it");
    }
  }

  /** A new server-side exchange for one accepted connection. */
  public Exchange serverExchange() {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    return new Exchange(nonce);
  }

  /** The server's side of one connection's handshake. */
  public final class Exchange {
    private final byte[] serverNonce;

    private Exchange(byte[] serverNonce) {
      this.serverNonce = serverNonce;
    }

    /** The challenge to send first. */
    public ByteBuffer challenge() {
      return ByteBuffer.allocate(CHALLENGE_BYTES).putInt(MAGIC).put(VERSION).put(serverNonce).flip();
    }

    /**
     * The proof to send back when {@code response} (exactly {@link #RESPONSE_BYTES}) comes from a
     * holder of the secret, else null.
     */
    public ByteBuffer accept(ByteBuffer response) {
      if (response.remaining() != RESPONSE_BYTES || response.getInt() != MAGIC || response.get() != VERSION) {
        return null;
      }
      byte[] clientNonce = new byte[NONCE_BYTES];
      response.get(clientNonce);
      byte[] mac = new byte[MAC_BYTES];
      response.get(mac);
      if (!MessageDigest.isEqual(mac, ConnectionAuth.this.mac(CLIENT, serverNonce, clientNonce))) {
        return null;
      }
      return ByteBuffer.wrap(ConnectionAuth.this.mac(SERVER, serverNonce, clientNonce));
    }
  }

  private byte[] mac(byte[] label, byte[] serverNonce, byte[] clientNonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(label);
      mac.update(serverNonce);
      mac.update(clientNonce);
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
    }
  }
}
