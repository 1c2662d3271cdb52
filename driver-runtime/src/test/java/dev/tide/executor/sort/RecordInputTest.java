package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RecordInputTest {
  private static byte[] twoRecords() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RecordOutput out = new RecordOutput(bytes);
    out.write(new byte[] {1, 2}, new byte[] {3}); // 1 + 2 + 1 + 1 = 5 bytes
    out.write(new byte[] {4, 5, 6}, new byte[] {7, 8}); // 1 + 3 + 1 + 2 = 7 bytes
    return bytes.toByteArray();
  }

  /**
   * Issue 37 item 9: a record that cannot be decoded is named by its source, its number and the
   * byte offsets where it starts and where decoding failed (before, only the records read).
   */
  @Test
  void aTruncatedRecordIsNamedByNumberAndByteOffset() throws IOException {
    byte[] truncated = Arrays.copyOf(twoRecords(), 10); // the second value lacks 2 bytes
    try (RecordInput in = new RecordInput(new ByteArrayInputStream(truncated),
        "spill file /tmp/s partition 3")) {
      assertTrue(in.advance());
      assertArrayEquals(new byte[] {3}, in.value());

      IOException e = assertThrows(IOException.class, in::advance);

      assertEquals("corrupt records in spill file /tmp/s partition 3: record 2 (from byte"
          + " offset 5), at byte offset 10: record of 2 bytes with 0 left", e.getMessage());
    }
  }
}
