package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tide.driver.job.Combiner;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Copying sorted records out, each run of one key folded by the job's combiner. */
class CombiningTest {
  /** Joins a key's values with '+', and notes every call. */
  private static final class Joining implements Combiner {
    final List<String> calls = new ArrayList<>();

    @Override
    public byte[] combine(byte[] key, java.util.Iterator<byte[]> values) {
      List<String> parts = new ArrayList<>();
      values.forEachRemaining(v -> parts.add(ListRecords.text(v)));
      calls.add(ListRecords.text(key) + ":" + parts);
      return ListRecords.bytes(String.join("+", parts));
    }
  }

  /** Copies {@code in} through Combining into record bytes and reads them back. */
  private static List<String> copy(SortedRecords in, Combiner combiner, long expectedWritten)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RecordOutput out = new RecordOutput(bytes);
    assertEquals(expectedWritten, Combining.copy(in, combiner, out));
    return ListRecords.drain(SortedRecords.of(new RecordInput(
        new ByteArrayInputStream(bytes.toByteArray()), "copied records")));
  }

  @Test
  void withoutACombinerEveryRecordIsCopiedAsItIs() throws IOException {
    assertEquals(List.of("a=1", "a=2", "b=3"),
        copy(ListRecords.of("a=1", "a=2", "b=3"), null, 3));
  }

  @Test
  void eachRunOfEqualKeysBecomesOneRecordAndALoneValueSkipsTheCombiner() throws IOException {
    Joining combiner = new Joining();

    List<String> out = copy(ListRecords.of("a=1", "a=2", "a=3", "b=4", "c=5", "c=6"), combiner,
        3);

    assertEquals(List.of("a=1+2+3", "b=4", "c=5+6"), out);
    assertEquals(List.of("a:[1, 2, 3]", "c:[5, 6]"), combiner.calls);
  }

  @Test
  void nothingInNothingOut() throws IOException {
    Joining combiner = new Joining();
    assertEquals(List.of(), copy(ListRecords.of(), combiner, 0));
    assertEquals(List.of(), combiner.calls);
  }

  @Test
  void aCombinersCheckedFailureIsAnIoExceptionNamingTheCombiner() {
    Combiner failing = (key, values) -> {
      throw new Exception("cannot fold " + ListRecords.text(key));
    };
    RecordOutput out = new RecordOutput(new ByteArrayOutputStream());

    IOException e = assertThrows(IOException.class,
        () -> Combining.copy(ListRecords.of("k=1", "k=2"), failing, out));

    assertEquals("combiner " + failing.getClass().getName() + " failed:"
        + " java.lang.Exception: cannot fold k", e.getMessage());
  }

  @Test
  void aCombinersRuntimeFailurePassesThroughUnchanged() {
    IllegalStateException thrown = new IllegalStateException("bad value");
    Combiner failing = (key, values) -> {
      throw thrown;
    };
    RecordOutput out = new RecordOutput(new ByteArrayOutputStream());

    assertSame(thrown, assertThrows(IllegalStateException.class,
        () -> Combining.copy(ListRecords.of("k=1", "k=2"), failing, out)));
  }
}
