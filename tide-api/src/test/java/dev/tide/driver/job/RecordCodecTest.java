package dev.tide.driver.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The record layout inside shuffle segments, and the partition of a key. */
class RecordCodecTest {
  private static byte[] segment(byte[]... keysAndValues) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      RecordCodec.write(out, keysAndValues[i], keysAndValues[i + 1]);
    }
    return out.toByteArray();
  }

  @ParameterizedTest(name = "a {0}-byte value")
  @ValueSource(ints = {0, 1, 127, 128, 16_383, 16_384, 300_000})
  void recordsOfAnyLengthReadBackAsWritten(int valueLength) {
    byte[] value = new byte[valueLength];
    new SplittableRandom(valueLength).nextBytes(value);
    byte[] seg = segment(new byte[0], value, "k".getBytes(), new byte[] {-1});

    Iterator<KeyValue> records = RecordCodec.read(seg);
    KeyValue first = records.next();
    assertArrayEquals(new byte[0], first.key());
    assertArrayEquals(value, first.value());
    assertEquals(0, first.input());
    KeyValue second = records.next();
    assertArrayEquals("k".getBytes(), second.key());
    assertArrayEquals(new byte[] {-1}, second.value());
    assertFalse(records.hasNext());
    assertThrows(NoSuchElementException.class, records::next);
  }

  /** The documented layout: varint key length, key, varint value length, value. */
  @Test
  void lengthsAreLittleEndianBase128Varints() {
    byte[] seg = segment(new byte[] {42}, new byte[300]);
    assertArrayEquals(new byte[] {1, 42, (byte) 0xAC, 0x02}, Arrays.copyOf(seg, 4));
    assertEquals(4 + 300, seg.length);
  }

  @Test
  void anEmptySegmentHasNoRecords() {
    assertFalse(RecordCodec.read(new byte[0]).hasNext());
  }

  @Test
  void segmentsOfSeveralMapsDecodeOneAfterAnother() {
    byte[] a = segment("a".getBytes(), "1".getBytes());
    byte[] b = segment("b".getBytes(), "2".getBytes(), "c".getBytes(), "3".getBytes());
    List<String> keys = new ArrayList<>();
    for (byte[] seg : List.of(a, b)) {
      RecordCodec.read(seg).forEachRemaining(r -> keys.add(new String(r.key())));
    }
    assertEquals(List.of("a", "b", "c"), keys);
  }

  @Test
  void aRecordLongerThanItsSegmentIsCorruptAndSaysWhere() {
    byte[] seg = Arrays.copyOf(segment("key".getBytes(), new byte[10]), 12);
    Iterator<KeyValue> records = RecordCodec.read(seg);
    IllegalStateException e = assertThrows(IllegalStateException.class, records::next);
    assertEquals("corrupt shuffle segment: record of 10 bytes at offset 5 of 12",
        e.getMessage());
  }

  @Test
  void aTruncatedOrOverlongLengthIsCorrupt() {
    IllegalStateException truncated = assertThrows(IllegalStateException.class,
        () -> RecordCodec.read(new byte[] {1, 7, (byte) 0x80}).next());
    assertEquals("corrupt shuffle segment: truncated length at offset 3",
        truncated.getMessage());
    byte[] endless = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1};
    IllegalStateException overlong = assertThrows(IllegalStateException.class,
        () -> RecordCodec.read(endless).next());
    assertEquals("corrupt shuffle segment: bad length at offset 5", overlong.getMessage());
  }

  @Test
  void aNegativeLengthIsCorrupt() {
    byte[] negative = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F};
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> RecordCodec.read(negative).next());
    assertTrue(e.getMessage().startsWith("corrupt shuffle segment: record of -1 bytes"),
        e.getMessage());
  }

  @Test
  void everyKeyHasAPartitionInRangeAndEqualKeysShareIt() {
    SplittableRandom random = new SplittableRandom(1);
    int[] counts = new int[7];
    for (int i = 0; i < 7_000; i++) {
      byte[] key = new byte[random.nextInt(0, 12)];
      random.nextBytes(key);
      int p = RecordCodec.partition(key, 7);
      assertTrue(p >= 0 && p < 7, "partition " + p + " of 7");
      assertEquals(p, RecordCodec.partition(key.clone(), 7));
      assertEquals(p, new Partitioner.Hash().partition(key, 7));
      counts[p]++;
    }
    for (int c : counts) {
      assertTrue(c > 700, "keys spread over the partitions: " + Arrays.toString(counts));
    }
  }
}
