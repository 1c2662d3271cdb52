package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reading back what was written to local disk, checked against its CRC32C. */
class VerifiedInputTest {
  private static final byte[] WRITTEN = "records as they were spilled".getBytes();

  private static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  /** Reads the whole stream, with the bulk or the single-byte read. */
  private static byte[] readAll(InputStream in, boolean bulk) throws IOException {
    if (bulk) {
      return in.readAllBytes();
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int b = in.read(); b >= 0; b = in.read()) {
      out.write(b);
    }
    return out.toByteArray();
  }

  @ParameterizedTest(name = "bulk reads: {0}")
  @ValueSource(booleans = {true, false})
  void intactBytesReadThroughToTheirEnd(boolean bulk) throws IOException {
    VerifiedInput in = new VerifiedInput(new ByteArrayInputStream(WRITTEN), crc(WRITTEN),
        "spill 1");
    assertArrayEquals(WRITTEN, readAll(in, bulk));
    assertEquals(-1, in.read(), "the end can be read again");
  }

  @ParameterizedTest(name = "bulk reads: {0}")
  @ValueSource(booleans = {true, false})
  void aChangedByteFailsAtTheEndNamingWhatWasRead(boolean bulk) {
    byte[] changed = WRITTEN.clone();
    changed[3] ^= 0x20;
    VerifiedInput in = new VerifiedInput(new ByteArrayInputStream(changed), crc(WRITTEN),
        "spill file /tmp/s partition 2");

    VerifiedInput.CorruptFileException e = assertThrows(VerifiedInput.CorruptFileException.class,
        () -> readAll(in, bulk));

    assertEquals("corrupt spill file /tmp/s partition 2: CRC32C "
        + Integer.toHexString(crc(changed)) + " where " + Integer.toHexString(crc(WRITTEN))
        + " was written (a local disk changed the file)", e.getMessage());
  }

  @Test
  void aMissingTailIsCaughtToo() {
    byte[] shorter = java.util.Arrays.copyOf(WRITTEN, WRITTEN.length - 1);
    VerifiedInput in = new VerifiedInput(new ByteArrayInputStream(shorter), crc(WRITTEN), "x");
    assertThrows(VerifiedInput.CorruptFileException.class, in::readAllBytes);
  }

  @Test
  void anEmptyPartitionHasTheChecksumOfNothing() throws IOException {
    VerifiedInput in = new VerifiedInput(new ByteArrayInputStream(new byte[0]),
        crc(new byte[0]), "empty");
    assertEquals(-1, in.read());
  }
}
