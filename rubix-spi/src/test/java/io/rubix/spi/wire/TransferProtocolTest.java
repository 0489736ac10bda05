package io.rubix.spi.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.wire.TransferProtocol.Received;
import io.rubix.spi.wire.TransferProtocol.Request;
import io.rubix.spi.wire.TransferProtocol.Status;
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

  private static void assertReceived(Received received, Request request) {
    assertThat(received.request()).isEqualTo(request);
    assertThat(received.authorized()).isTrue();
  }

  @Test
  void requestsRoundTripWithAndWithoutMac() throws IOException {
    assertReceived(decode(TransferProtocol.encode(REQUEST, null), null), REQUEST);
    byte[] signed = TransferProtocol.encode(REQUEST, SECRET);
    Received received = decode(signed, SECRET);
    assertReceived(received, REQUEST);
    assertThat(received.mac()).isEqualTo(TransferProtocol.requestMac(signed));
    // a server without a secret ignores a MAC, and binds no response to it
    assertThat(decode(signed, null).authorized()).isTrue();
    assertThat(decode(signed, null).mac()).isNull();
  }

  @Test
  void everyRequestCarriesAFreshNonceSoNoTwoMacsAreAlike() {
    byte[] one = TransferProtocol.encode(REQUEST, SECRET);
    byte[] two = TransferProtocol.encode(REQUEST, SECRET);
    assertThat(one).hasSameSizeAs(two).isNotEqualTo(two);
    assertThat(TransferProtocol.requestMac(one)).isNotEqualTo(TransferProtocol.requestMac(two));
  }

  @Test
  void aResponseMacBindsTheResponseToItsRequest() throws IOException {
    byte[] requestMac = TransferProtocol.requestMac(TransferProtocol.encode(REQUEST, SECRET));
    byte[] header = TransferProtocol.encodeStatus(Status.OK);
    byte[] blocks = {1, 2, 3};
    javax.crypto.Mac sending = TransferProtocol.responseMac(SECRET, requestMac);
    sending.update(header);
    sending.update(blocks);
    byte[] tag = TransferProtocol.tag(sending);
    assertThat(tag).hasSize(1 + TransferProtocol.MAC_BYTES);

    javax.crypto.Mac same = TransferProtocol.responseMac(SECRET, requestMac);
    same.update(header);
    same.update(blocks);
    TransferProtocol.verifyTag(new DataInputStream(new ByteArrayInputStream(tag)), same, "test");

    byte[] otherRequest = TransferProtocol.requestMac(TransferProtocol.encode(REQUEST, SECRET));
    for (javax.crypto.Mac other : new javax.crypto.Mac[] {TransferProtocol.responseMac(SECRET, otherRequest),
        TransferProtocol.responseMac("other".getBytes(StandardCharsets.UTF_8), requestMac)}) {
      other.update(header);
      other.update(blocks);
      assertThatThrownBy(() -> TransferProtocol.verifyTag(new DataInputStream(new ByteArrayInputStream(tag)), other, "test"))
          .isInstanceOf(TransferProtocol.BadResponseException.class).hasMessageContaining("Wrong response MAC in test");
    }
    javax.crypto.Mac tampered = TransferProtocol.responseMac(SECRET, requestMac);
    tampered.update(header);
    tampered.update(new byte[] {1, 2, 4});
    assertThatThrownBy(() -> TransferProtocol.verifyTag(new DataInputStream(new ByteArrayInputStream(tag)), tampered, "test"))
        .isInstanceOf(TransferProtocol.BadResponseException.class);
    javax.crypto.Mac missing = TransferProtocol.responseMac(SECRET, requestMac);
    assertThatThrownBy(() -> TransferProtocol.verifyTag(new DataInputStream(new ByteArrayInputStream(TransferProtocol.tag(null))), missing, "test"))
        .isInstanceOf(TransferProtocol.BadResponseException.class).hasMessageContaining("No response MAC");
  }

  @Test
  void theFillFlagRoundTripsAndUnknownFlagsOrVersionsAreRefused() throws IOException {
    Request fill = new Request(VERSION, 1 << 20, 3, 4, true);
    assertReceived(decode(TransferProtocol.encode(fill, SECRET), SECRET), fill);
    assertThat(REQUEST.fill()).isFalse();
    byte[] flags = TransferProtocol.encode(fill, null);
    flags[6] = 2;
    assertThatThrownBy(() -> decode(flags, null)).isInstanceOf(TransferProtocol.ProtocolException.class)
        .isNotInstanceOf(TransferProtocol.UnsupportedVersionException.class);
    for (byte old : new byte[] {1, 2, 3}) {
      byte[] oldRequest = TransferProtocol.encode(fill, null);
      oldRequest[5] = old;
      assertThatThrownBy(() -> decode(oldRequest, null)).isInstanceOf(TransferProtocol.UnsupportedVersionException.class)
          .hasMessageContaining("version " + old);
    }
    byte[] oldResponse = TransferProtocol.encodeStatus(Status.OK);
    oldResponse[5] = 3;
    assertThatThrownBy(() -> TransferProtocol.readStatus(new DataInputStream(new ByteArrayInputStream(oldResponse))))
        .isInstanceOf(TransferProtocol.UnsupportedVersionException.class);
  }

  @Test
  void missingWrongOrTamperedMacIsUnauthorized() throws IOException {
    assertThat(decode(TransferProtocol.encode(REQUEST, null), SECRET).authorized()).isFalse();
    assertThat(decode(TransferProtocol.encode(REQUEST, "other".getBytes(StandardCharsets.UTF_8)), SECRET).authorized()).isFalse();
    byte[] tampered = TransferProtocol.encode(REQUEST, SECRET);
    tampered[tampered.length - 34 - TransferProtocol.NONCE_BYTES] ^= 1; // the block count: 4 becomes 5
    assertThat(decode(tampered, SECRET).authorized()).isFalse();
    byte[] nonce = TransferProtocol.encode(REQUEST, SECRET);
    nonce[nonce.length - 34] ^= 1;
    assertThat(decode(nonce, SECRET).authorized()).isFalse();
    assertThat(decode(nonce, SECRET).mac()).isNull();
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
  void statusesRoundTrip() throws IOException {
    for (Status status : Status.values()) {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(new AnswerEncoder(null).status(status)));
      AnswerDecoder decoder = new AnswerDecoder(in, null, "test");
      assertThat(decoder.status()).isEqualTo(status);
      if (status != Status.OK) {
        assertThat(in.available()).as("the tag was read").isZero();
        assertThat(decoder.nextBlock(1)).isNull();
      }
    }
  }
}
