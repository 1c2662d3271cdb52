package dev.tide.shuffle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the map output index reader ({@link MapOutputIndex#decode}), the parser of the one file
 * the shuffle service reads from a disk that may have damaged it. Properties for every input:
 * the reader either refuses it with an {@link IOException} (never another exception, never a
 * huge allocation) or returns an index that is exactly the input (it encodes back to the same
 * bytes) and is sane (offsets start at 0 and never decrease). So a damaged index is never read
 * as another one.
 *
 * <p>Input ({@link #check}): byte 0 even = the bytes are an index file as they are; odd = the
 * rest describes a valid index (partitions, segment lengths, checksums on or off) and then
 * mutations of its encoding (flip a bit, set a byte, truncate, append), the mutated bytes are
 * read. Under plain {@code mvn test} the {@link FuzzTest} replays the seeds in
 * {@code src/test/resources/dev/tide/shuffle/MapOutputIndexFuzzTestInputs/
 * indexReaderRefusesOrReadsExactly/} (regenerate with {@link #main}) and
 * {@link #randomAndMutatedIndexesWithAFixedSeed} runs a bounded random search. Coverage-guided:
 * <pre>
 *   JAZZER_FUZZ=1 mvn -B -o -pl shuffle-client -am test -Dtest=MapOutputIndexFuzzTest \
 *       -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration=60s
 * </pre>
 * (and every build without {@code -DskipFuzz}, profile {@code ci-fuzz}).
 */
class MapOutputIndexFuzzTest {
  @FuzzTest(maxDuration = "15s")
  void indexReaderRefusesOrReadsExactly(byte[] input) {
    check(input);
  }

  @Test
  void randomAndMutatedIndexesWithAFixedSeed() {
    SplittableRandom random = new SplittableRandom(20261125L);
    for (int i = 0; i < 20_000; i++) {
      byte[] input = new byte[random.nextInt(120)];
      random.nextBytes(input);
      check(input);
    }
    for (byte[] seed : seeds()) {
      check(seed);
    }
  }

  @Test
  void mutationsOfAValidIndexAreRefusedOrReadExactly() throws IOException {
    byte[] good = MapOutputIndex.ofLengths(new long[] {5, 0, 12, 4096}, new int[] {1, 2, 3, 4})
        .encode();
    // Truncated tails, an appended byte, decreasing offsets with a fixed-up checksum.
    for (int len = 0; len < good.length; len++) {
      byte[] cut = Arrays.copyOf(good, len);
      assertThrows(IOException.class, () -> MapOutputIndex.decode(cut, "t"));
    }
    assertThrows(IOException.class, () -> MapOutputIndex.decode(Arrays.copyOf(good,
        good.length + 1), "t"));
    IOException decreasing = assertThrows(IOException.class, () -> MapOutputIndex.decode(
        MapOutputIndexTest.withOffsets(new long[] {0, 10, 9, 20}), "t"));
    assertTrue(decreasing.getMessage().contains("below offset 1"), decreasing.getMessage());
    check(good);
  }

  /** Runs one input and checks the properties; throws on a violation. */
  static void check(byte[] input) {
    byte[] bytes = input.length > 0 && (input[0] & 1) == 1 ? mutatedIndex(input) : input;
    MapOutputIndex index;
    try {
      index = MapOutputIndex.decode(bytes, "fuzz");
    } catch (IOException refused) {
      return;
    }
    assertArrayEquals(bytes, index.encode(), "an accepted index is exactly its bytes");
    assertEquals(0, index.offset(0));
    for (int i = 1; i <= index.partitions(); i++) {
      assertTrue(index.offset(i) >= index.offset(i - 1), "offsets never decrease");
    }
  }

  /** A valid index described by {@code input[1..]}, then mutated as the rest of it says. */
  static byte[] mutatedIndex(byte[] input) {
    ByteBuffer in = ByteBuffer.wrap(input, 1, input.length - 1);
    int partitions = 1 + (in.hasRemaining() ? in.get() & 0x0f : 0);
    boolean checksums = in.hasRemaining() && (in.get() & 1) == 1;
    long[] lengths = new long[partitions];
    int[] crcs = checksums ? new int[partitions] : null;
    for (int r = 0; r < partitions; r++) {
      lengths[r] = in.remaining() >= 2 ? in.getShort() & 0xffff : r;
      if (checksums) {
        crcs[r] = in.remaining() >= 4 ? in.getInt() : r;
      }
    }
    byte[] bytes = MapOutputIndex.ofLengths(lengths, crcs).encode();
    while (in.remaining() >= 3) {
      int op = in.get() & 3;
      int at = in.getShort() & 0xffff;
      switch (op) {
        case 0 -> { // flip a bit
          if (bytes.length > 0) {
            bytes[at % bytes.length] ^= (byte) (1 << (at >>> 13));
          }
        }
        case 1 -> { // set a byte
          if (bytes.length > 0 && in.hasRemaining()) {
            bytes[at % bytes.length] = in.get();
          }
        }
        case 2 -> bytes = Arrays.copyOf(bytes, bytes.length == 0 ? 0 : at % bytes.length);
        default -> bytes = Arrays.copyOf(bytes, bytes.length + 1 + at % 16);
      }
    }
    return bytes;
  }

  /** Seeds: valid indexes with and without checksums, and mutations of them. */
  static byte[][] seeds() {
    return new byte[][] {
        MapOutputIndex.ofLengths(new long[] {5, 0, 12}, new int[] {7, -1, 9}).encode(),
        MapOutputIndex.ofLengths(new long[] {3}, null).encode(),
        {1, 3, 1, 0, 10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 20, 0, 0, 0, 3},
        {1, 2, 0, 0, 1, 0, 2, 0, 3, 0, 0, 5, 2, 0, 9},
        {3, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1},
    };
  }

  /** Writes {@link #seeds()} as the FuzzTest's seed corpus into the directory given. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    byte[][] seeds = seeds();
    for (int i = 0; i < seeds.length; i++) {
      Files.write(dir.resolve(String.format("seed-%02d", i)), seeds[i]);
    }
  }
}
