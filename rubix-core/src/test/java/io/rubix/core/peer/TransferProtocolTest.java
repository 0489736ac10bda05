package io.rubix.core.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.peer.TransferProtocol.Received;
import io.rubix.core.peer.TransferProtocol.Request;
import io.rubix.core.peer.TransferProtocol.Status;
import io.rubix.spi.ObjectVersion;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TransferProtocolTest {
  private static final byte[] SECRET = "secret".getBytes(StandardCharsets.UTF_8);
  private static final ObjectVersion VERSION = new ObjectVersion("s3a://bucket/dir/ä.orc", 10_000_000, 1234, "\"etag\"");
  private static final Request REQUEST = new Request(VERSION, 1 << 20, 3, 4);

  private static Received decode(byte[] bytes, byte[] secret) throws IOException {
    return TransferProtocol.decode(new DataInputStream(new ByteArrayInputStream(bytes)), secret);
  }

  @Test
  void requestsRoundTripWithAndWithoutMac() throws IOException {
    assertThat(decode(TransferProtocol.encode(REQUEST, null), null)).isEqualTo(new Received(REQUEST, true));
    assertThat(decode(TransferProtocol.encode(REQUEST, SECRET), SECRET)).isEqualTo(new Received(REQUEST, true));
    // a server without a secret ignores a MAC
    assertThat(decode(TransferProtocol.encode(REQUEST, SECRET), null).authorized()).isTrue();
  }

  @Test
  void theFillFlagRoundTripsAndUnknownFlagsOrVersionsAreRefused() throws IOException {
    Request fill = new Request(VERSION, 1 << 20, 3, 4, true);
    assertThat(decode(TransferProtocol.encode(fill, SECRET), SECRET)).isEqualTo(new Received(fill, true));
    assertThat(REQUEST.fill()).isFalse();
    byte[] flags = TransferProtocol.encode(fill, null);
    flags[6] = 2;
    assertThatThrownBy(() -> decode(flags, null)).isInstanceOf(TransferProtocol.ProtocolException.class)
        .isNotInstanceOf(TransferProtocol.UnsupportedVersionException.class);
    byte[] version1 = TransferProtocol.encode(fill, null);
    version1[5] = 1;
    assertThatThrownBy(() -> decode(version1, null)).isInstanceOf(TransferProtocol.UnsupportedVersionException.class)
        .hasMessageContaining("version 1");
    byte[] oldResponse = TransferProtocol.encodeResponse(Status.OK, new int[] {1}, new int[] {1});
    oldResponse[5] = 1;
    assertThatThrownBy(() -> TransferProtocol.readStatus(new DataInputStream(new ByteArrayInputStream(oldResponse))))
        .isInstanceOf(TransferProtocol.UnsupportedVersionException.class);
  }

  @Test
  void missingWrongOrTamperedMacIsUnauthorized() throws IOException {
    assertThat(decode(TransferProtocol.encode(REQUEST, null), SECRET).authorized()).isFalse();
    assertThat(decode(TransferProtocol.encode(REQUEST, "other".getBytes(StandardCharsets.UTF_8)), SECRET).authorized()).isFalse();
    byte[] tampered = TransferProtocol.encode(REQUEST, SECRET);
    tampered[tampered.length - 34] ^= 1; // the block count: 4 becomes 5
    assertThat(decode(tampered, SECRET).authorized()).isFalse();
  }

  @Test
  void boundsAreEnforced() {
    assertThatThrownBy(() -> decode(TransferProtocol.encode(new Request(VERSION, 1 << 20, 0, TransferProtocol.MAX_BLOCKS + 1), null), null))
        .isInstanceOf(TransferProtocol.ProtocolException.class);
    assertThatThrownBy(() -> decode(TransferProtocol.encode(new Request(VERSION, 1 << 20, 9, 2), null), null))
        .isInstanceOf(TransferProtocol.ProtocolException.class);
    assertThatThrownBy(() -> decode(TransferProtocol.encode(new Request(VERSION, 1 << 20, -1, 1), null), null))
        .isInstanceOf(TransferProtocol.ProtocolException.class);
    assertThatThrownBy(() -> decode(TransferProtocol.encode(new Request(VERSION, 0, 0, 1), null), null))
        .isInstanceOf(TransferProtocol.ProtocolException.class);
    byte[] bytes = TransferProtocol.encode(REQUEST, null);
    bytes[0] = 0;
    assertThatThrownBy(() -> decode(bytes, null)).isInstanceOf(TransferProtocol.ProtocolException.class);
    byte[] version = TransferProtocol.encode(REQUEST, null);
    version[5] = 9;
    assertThatThrownBy(() -> decode(version, null)).isInstanceOf(TransferProtocol.ProtocolException.class);
  }

  @Test
  void truncatedOrRandomFramesNeverCrash() {
    byte[] bytes = TransferProtocol.encode(REQUEST, SECRET);
    for (int length = 0; length < bytes.length; length++) {
      byte[] prefix = java.util.Arrays.copyOf(bytes, length);
      assertThatThrownBy(() -> decode(prefix, SECRET)).isInstanceOf(EOFException.class);
    }
    Random random = new Random(1);
    for (int i = 0; i < 10_000; i++) {
      byte[] garbage = bytes.clone();
      garbage[random.nextInt(garbage.length)] = (byte) random.nextInt();
      try {
        decode(garbage, SECRET);
      } catch (IOException expected) {
        // malformed or truncated: fine
      }
    }
  }

  @Test
  void responsesRoundTrip() throws IOException {
    byte[] ok = TransferProtocol.encodeResponse(Status.OK, new int[] {5, 6}, new int[] {7, 8});
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(ok));
    assertThat(TransferProtocol.readStatus(in)).isEqualTo(Status.OK);
    assertThat(new int[] {in.readInt(), in.readInt(), in.readInt(), in.readInt(), in.readInt()}).containsExactly(2, 5, 7, 6, 8);
    for (Status status : Status.values()) {
      if (status != Status.OK) {
        assertThat(TransferProtocol.readStatus(new DataInputStream(new ByteArrayInputStream(TransferProtocol.encodeResponse(status, null, null)))))
            .isEqualTo(status);
      }
    }
  }
}
