package dev.tide.executor.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One byte range of a spill or data file, read as a stream. */
class FileRangeInputTest {
  @TempDir
  Path dir;

  private Path file;
  private byte[] content;

  @BeforeEach
  void writeFile() throws IOException {
    content = new byte[3 * FileRangeInput.BUFFER_BYTES + 123];
    new SplittableRandom(3).nextBytes(content);
    file = Files.write(dir.resolve("data"), content);
  }

  @ParameterizedTest(name = "[{0}, {1})")
  @CsvSource({"0, 10", "5, 5", "100, 40000", "0, 98427", "32768, 65536", "98426, 98427"})
  void readsExactlyTheBytesOfItsRange(long from, long to) throws IOException {
    try (FileRangeInput in = new FileRangeInput(file, from, to)) {
      assertEquals(to - from, in.available());
      assertArrayEquals(Arrays.copyOfRange(content, (int) from, (int) to), in.readAllBytes());
      assertEquals(0, in.available());
      assertEquals(-1, in.read());
    }
  }

  @Test
  void singleByteReadsGiveUnsignedValues() throws IOException {
    int at = 0;
    while (content[at] >= 0) {
      at++;
    }
    try (FileRangeInput in = new FileRangeInput(file, at, at + 1)) {
      assertEquals(content[at] & 0xFF, in.read());
      assertEquals(-1, in.read());
    }
  }

  @Test
  void twoRangesOfOneFileCanBeReadInTurns() throws IOException {
    try (FileRangeInput a = new FileRangeInput(file, 0, 3);
        FileRangeInput b = new FileRangeInput(file, 50_000, 50_003)) {
      byte[] read = new byte[6];
      for (int i = 0; i < 3; i++) {
        read[i] = (byte) a.read();
        read[3 + i] = (byte) b.read();
      }
      assertArrayEquals(new byte[] {content[0], content[1], content[2], content[50_000],
          content[50_001], content[50_002]}, read);
    }
  }

  @Test
  void aRangeBeyondTheFilesEndFailsSayingWhereItEnded() throws IOException {
    try (FileRangeInput in = new FileRangeInput(file, content.length - 10,
        content.length + 5)) {
      IOException e = assertThrows(IOException.class, in::readAllBytes);
      assertEquals("file ended at " + content.length + " before " + (content.length + 5),
          e.getMessage());
    }
  }
}
