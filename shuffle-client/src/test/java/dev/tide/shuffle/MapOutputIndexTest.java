package dev.tide.shuffle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

public class MapOutputIndexTest {
  /** A well-formed index (header and own checksum right) with these offsets, maybe insane. */
  public static byte[] withOffsets(long[] offsets) {
    ByteBuffer out = ByteBuffer.allocate((int) MapOutputIndex.fileLength(offsets.length - 1,
        false));
    out.putInt(0x54494458).put((byte) 1).put((byte) 0).putInt(offsets.length - 1);
    for (long offset : offsets) {
      out.putLong(offset);
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    return out.array();
  }

  @Test
  void roundTripsWithAndWithoutChecksums() throws IOException {
    MapOutputIndex with = MapOutputIndex.ofLengths(new long[] {5, 0, 12}, new int[] {7, -1, 9});
    MapOutputIndex read = MapOutputIndex.decode(with.encode(), "t");
    assertArrayEquals(new long[] {0, 5, 5, 17}, read.offsets());
    assertArrayEquals(new int[] {7, -1, 9}, read.checksums());
    MapOutputIndex without = MapOutputIndex.decode(
        MapOutputIndex.ofLengths(new long[] {3}, null).encode(), "t");
    assertFalse(without.hasChecksums());
    assertEquals(3, without.dataLength());
  }

  @Test
  void everySingleBitFlipIsRefused() {
    byte[] good = MapOutputIndex.ofLengths(new long[] {5, 0, 12, 4096}, new int[] {1, 2, 3, 4})
        .encode();
    for (int bit = 0; bit < good.length * 8; bit++) {
      byte[] bad = good.clone();
      bad[bit / 8] ^= (byte) (1 << (bit % 8));
      int b = bit;
      assertThrows(IOException.class, () -> MapOutputIndex.decode(bad, "f"), "bit " + b);
    }
  }

  @Test
  void refusalsSayWhatIsWrongAndWhere() {
    assertMessage(new byte[10], "index f is too short");
    assertMessage(new byte[40], "has no Tide index header");
    assertMessage(withOffsets(new long[] {0, 8, 4}), "offset 2 (4) is below offset 1 (8)");
    assertMessage(withOffsets(new long[] {3, 8}), "offset 0 (3) is not 0");
    byte[] good = MapOutputIndex.ofLengths(new long[] {1, 2}, new int[] {1, 2}).encode();
    assertMessage(Arrays.copyOf(good, good.length - 1), "truncated or corrupt");
    byte[] crc = good.clone();
    crc[crc.length - 1] ^= 1;
    assertMessage(crc, "fails its checksum");
  }

  @Test
  void randomBytesNeverParseAndNeverThrowAnythingElse() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = new byte[random.nextInt(80)];
      random.nextBytes(bytes);
      if (bytes.length > 4 && random.nextBoolean()) {
        ByteBuffer.wrap(bytes).putInt(0x54494458); // past the magic, into the rest
      }
      assertThrows(IOException.class, () -> MapOutputIndex.decode(bytes, "r"));
    }
  }

  private static void assertMessage(byte[] bytes, String expected) {
    IOException e = assertThrows(IOException.class, () -> MapOutputIndex.decode(bytes, "f"));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
