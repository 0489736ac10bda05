package io.rubix.spi.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.wire.TransferProtocol.Request;
import io.rubix.spi.wire.TransferProtocol.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import javax.crypto.Mac;
import org.junit.jupiter.api.Test;

/** Answers of protocol version 4: blocks in frames, each ended by its CRC32C and a tag; what a reader takes from a broken one. */
class AnswerCodecTest {
  private static final byte[] SECRET = "secret".getBytes(StandardCharsets.UTF_8);
  private static final int BLOCK = 1000;
  private static final byte[][] BLOCKS = blocks(3);
  private final byte[] requestMac = TransferProtocol.requestMac(
      TransferProtocol.encode(new Request(new ObjectVersion("s3a://b/o", 3 * BLOCK, 1, ""), BLOCK, 0, 3), SECRET));

  private static byte[][] blocks(int count) {
    Random random = new Random(7);
    byte[][] blocks = new byte[count][BLOCK];
    for (byte[] block : blocks) {
      random.nextBytes(block);
    }
    return blocks;
  }

  private static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  /** An answer of {@code blocks}, each sent in frames of at most {@code frame} bytes, MACed with {@code mac}; {@code crcOf} gives each block's CRC32C. */
  private static ByteArrayOutputStream answer(Mac mac, byte[][] blocks, int frame, java.util.function.IntUnaryOperator crcOf) {
    return answer(new AnswerEncoder(mac), blocks, frame, crcOf);
  }

  private static ByteArrayOutputStream answer(AnswerEncoder encoder, byte[][] blocks, int frame, java.util.function.IntUnaryOperator crcOf) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(encoder.status(Status.OK));
    for (int i = 0; i < blocks.length; i++) {
      for (int from = 0; from < blocks[i].length; from += frame) {
        int to = Math.min(blocks[i].length, from + frame);
        out.writeBytes(encoder.frame(to - from));
        encoder.data(ByteBuffer.wrap(blocks[i], from, to - from));
        out.write(blocks[i], from, to - from);
      }
      out.writeBytes(encoder.blockEnd(crcOf.applyAsInt(i)));
    }
    return out;
  }

  private static AnswerDecoder decoder(byte[] bytes, Mac mac) {
    return new AnswerDecoder(new DataInputStream(new ByteArrayInputStream(bytes)), mac, "test answer");
  }

  @Test
  void blocksInFramesRoundTripWithAndWithoutSecret() throws IOException {
    for (boolean secret : new boolean[] {false, true}) {
      AnswerEncoder encoder = new AnswerEncoder(secret ? TransferProtocol.responseMac(SECRET, requestMac) : null);
      ByteArrayOutputStream whole = answer(encoder, BLOCKS, 333, i -> crc(BLOCKS[i]));
      whole.writeBytes(encoder.end());
      AnswerDecoder decoder = decoder(whole.toByteArray(), secret ? TransferProtocol.responseMac(SECRET, requestMac) : null);
      assertThat(decoder.status()).isEqualTo(Status.OK);
      for (byte[] block : BLOCKS) {
        assertThat(decoder.nextBlock(BLOCK)).isEqualTo(block);
      }
      decoder.end();
    }
  }

  @Test
  void aChecksumMismatchMidAnswerKeepsTheBlocksBeforeItAndNoByteOfIt() throws IOException {
    ByteArrayOutputStream out = answer((Mac) null, BLOCKS, 400, i -> i == 1 ? crc(BLOCKS[i]) ^ 1 : crc(BLOCKS[i]));
    AnswerDecoder decoder = decoder(out.toByteArray(), null);
    assertThat(decoder.status()).isEqualTo(Status.OK);
    assertThat(decoder.nextBlock(BLOCK)).isEqualTo(BLOCKS[0]);
    assertThatThrownBy(() -> decoder.nextBlock(BLOCK)).isInstanceOf(TransferProtocol.BadResponseException.class)
        .hasMessageContaining("Checksum mismatch in test answer");
  }

  @Test
  void aTamperedBlockWithAMatchingChecksumFailsItsTagAndIsNotHandedOn() throws IOException {
    byte[][] tampered = {BLOCKS[0], BLOCKS[1].clone(), BLOCKS[2]};
    tampered[1][500] ^= 1;
    // the sender MACs the true bytes; on the way block 1 changes, its CRC32C recomputed to match
    Mac mac = TransferProtocol.responseMac(SECRET, requestMac);
    byte[] genuine = answer(mac, BLOCKS, BLOCK, i -> crc(BLOCKS[i])).toByteArray();
    byte[] forged = answer(TransferProtocol.responseMac(SECRET, requestMac), tampered, BLOCK, i -> crc(tampered[i])).toByteArray();
    // splice: forged block 1 (bytes and CRC) with the genuine tags
    int blockBytes = 4 + BLOCK + 8 + 1 + TransferProtocol.MAC_BYTES;
    int header = TransferProtocol.encodeStatus(Status.OK).length;
    byte[] spliced = genuine.clone();
    int start = header + blockBytes;
    System.arraycopy(forged, start, spliced, start, 4 + BLOCK + 8);
    AnswerDecoder decoder = decoder(spliced, TransferProtocol.responseMac(SECRET, requestMac));
    assertThat(decoder.status()).isEqualTo(Status.OK);
    assertThat(decoder.nextBlock(BLOCK)).isEqualTo(BLOCKS[0]);
    assertThatThrownBy(() -> decoder.nextBlock(BLOCK)).isInstanceOf(TransferProtocol.BadResponseException.class)
        .hasMessageContaining("Wrong response MAC in test answer");
    // a reader with the secret and an answer without MACs: nothing
    AnswerDecoder unsigned = decoder(answer((Mac) null, BLOCKS, BLOCK, i -> crc(BLOCKS[i])).toByteArray(), TransferProtocol.responseMac(SECRET, requestMac));
    assertThat(unsigned.status()).isEqualTo(Status.OK);
    assertThatThrownBy(() -> unsigned.nextBlock(BLOCK)).isInstanceOf(TransferProtocol.BadResponseException.class)
        .hasMessageContaining("No response MAC");
  }

  @Test
  void anEndOrABreakInsideABlockDropsThatBlock() throws IOException {
    AnswerEncoder encoder = new AnswerEncoder(null);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(encoder.status(Status.OK));
    out.writeBytes(encoder.frame(BLOCK));
    out.writeBytes(BLOCKS[0]);
    out.writeBytes(encoder.blockEnd(crc(BLOCKS[0])));
    out.writeBytes(encoder.frame(100));
    out.write(BLOCKS[1], 0, 100);
    byte[] broken = out.toByteArray();
    out.writeBytes(encoder.end());

    AnswerDecoder ended = decoder(out.toByteArray(), null);
    assertThat(ended.status()).isEqualTo(Status.OK);
    assertThat(ended.nextBlock(BLOCK)).isEqualTo(BLOCKS[0]);
    assertThat(ended.nextBlock(BLOCK)).as("the owner stopped inside block 1").isNull();
    assertThat(ended.nextBlock(BLOCK)).isNull();

    AnswerDecoder cut = decoder(broken, null);
    assertThat(cut.status()).isEqualTo(Status.OK);
    assertThat(cut.nextBlock(BLOCK)).isEqualTo(BLOCKS[0]);
    assertThatThrownBy(() -> cut.nextBlock(BLOCK)).isInstanceOf(EOFException.class);
  }

  @Test
  void framesThatBreakTheBlockLengthAreProtocolErrors() throws IOException {
    AnswerEncoder encoder = new AnswerEncoder(null);
    ByteArrayOutputStream longer = new ByteArrayOutputStream();
    longer.writeBytes(encoder.status(Status.OK));
    longer.writeBytes(encoder.frame(BLOCK + 1));
    longer.writeBytes(new byte[BLOCK + 1]);
    AnswerDecoder tooLong = decoder(longer.toByteArray(), null);
    tooLong.status();
    assertThatThrownBy(() -> tooLong.nextBlock(BLOCK)).isInstanceOf(TransferProtocol.ProtocolException.class).hasMessageContaining("Frame of 1001");

    ByteArrayOutputStream shorter = new ByteArrayOutputStream();
    shorter.writeBytes(encoder.status(Status.OK));
    shorter.writeBytes(encoder.frame(10));
    shorter.writeBytes(Arrays.copyOf(BLOCKS[0], 10));
    shorter.writeBytes(encoder.blockEnd(0));
    AnswerDecoder tooShort = decoder(shorter.toByteArray(), null);
    tooShort.status();
    assertThatThrownBy(() -> tooShort.nextBlock(BLOCK)).isInstanceOf(TransferProtocol.ProtocolException.class)
        .hasMessageContaining("Block of 10 bytes, expected 1000");

    ByteArrayOutputStream more = answer((Mac) null, BLOCKS, BLOCK, i -> crc(BLOCKS[i]));
    more.writeBytes(encoder.frame(1));
    AnswerDecoder extra = decoder(more.toByteArray(), null);
    extra.status();
    for (byte[] block : BLOCKS) {
      assertThat(extra.nextBlock(BLOCK)).isEqualTo(block);
    }
    assertThatThrownBy(extra::end).isInstanceOf(TransferProtocol.ProtocolException.class).hasMessageContaining("More blocks than asked for");
  }
}
