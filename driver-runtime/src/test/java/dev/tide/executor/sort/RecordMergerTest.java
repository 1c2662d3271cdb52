package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The k-way merge that map-side spills and reduce-side segments go through. */
class RecordMergerTest {
  @Test
  void equalKeysComeOutAdjacentInTheOrderOfTheirInputs() throws IOException {
    RecordMerger merger = new RecordMerger(List.of(
        ListRecords.of("b=0", "d=0"),
        ListRecords.of("a=1", "b=1", "b=1'", "e=1"),
        ListRecords.of("b=2", "c=2")));

    List<String> out = new ArrayList<>();
    List<Integer> inputs = new ArrayList<>();
    while (merger.advance()) {
      out.add(ListRecords.text(merger.key()) + "=" + ListRecords.text(merger.value()));
      inputs.add(merger.input());
    }

    assertEquals(List.of("a=1", "b=0", "b=1", "b=1'", "b=2", "c=2", "d=0", "e=1"), out);
    assertEquals(List.of(1, 0, 1, 1, 2, 2, 0, 1), inputs);
  }

  @Test
  void keysAreComparedAsUnsignedBytesWithAPrefixFirst() throws IOException {
    SortedRecords high = new SortedBytes(new byte[][] {{(byte) 0x80}, {(byte) 0xff}});
    SortedRecords low = new SortedBytes(new byte[][] {{0x01}, {0x01, 0x00}, {0x7f}});

    List<byte[]> keys = new ArrayList<>();
    try (RecordMerger merger = new RecordMerger(List.of(high, low))) {
      while (merger.advance()) {
        keys.add(merger.key());
      }
    }

    assertArrayEquals(new byte[][] {{0x01}, {0x01, 0x00}, {0x7f}, {(byte) 0x80}, {(byte) 0xff}},
        keys.toArray(new byte[0][]));
  }

  @Test
  void emptyInputsAndNoInputsGiveNothing() throws IOException {
    assertFalse(new RecordMerger(List.of()).advance());
    RecordMerger merger = new RecordMerger(List.of(ListRecords.of(), ListRecords.of("k=v"),
        ListRecords.of()));
    assertEquals(List.of("k=v"), ListRecords.drain(merger));
    assertFalse(merger.advance(), "stays at its end");
  }

  @Test
  void manyRandomRunsMergeIntoTheirSortedUnion() throws IOException {
    SplittableRandom random = new SplittableRandom(5);
    List<SortedRecords> runs = new ArrayList<>();
    List<String> all = new ArrayList<>();
    for (int r = 0; r < 12; r++) {
      String[] run = new String[random.nextInt(0, 30)];
      for (int i = 0; i < run.length; i++) {
        run[i] = String.format("%03d=%02d", random.nextInt(0, 200), r);
      }
      Arrays.sort(run);
      all.addAll(List.of(run));
      runs.add(ListRecords.of(run));
    }

    List<String> merged = ListRecords.drain(new RecordMerger(runs));

    all.sort(null); // by key, then by run: the merger's order for these keys and values
    assertEquals(all, merged);
  }

  @Test
  void closingClosesEveryInputAndReportsEveryFailure() {
    ListRecords ok = ListRecords.of("a=1");
    ListRecords first = ListRecords.failingOnClose("disk 1 gone");
    ListRecords second = ListRecords.failingOnClose("disk 2 gone");
    RecordMerger merger = new RecordMerger(List.of(first, ok, second));

    IOException e = assertThrows(IOException.class, merger::close);

    assertTrue(ok.closed && first.closed && second.closed);
    assertEquals("disk 1 gone", e.getMessage());
    assertEquals("disk 2 gone", e.getSuppressed()[0].getMessage());
  }

  /** Keys given as raw bytes, values empty. */
  private static final class SortedBytes implements SortedRecords {
    private final byte[][] keys;
    private int at = -1;

    SortedBytes(byte[][] keys) {
      this.keys = keys;
    }

    @Override
    public boolean advance() {
      return ++at < keys.length;
    }

    @Override
    public byte[] key() {
      return keys[at];
    }

    @Override
    public byte[] value() {
      return new byte[0];
    }

    @Override
    public void close() {}
  }
}
