package dev.tide.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tide.network.MalformedFrameException;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the driver RPC's decoder ({@link RpcMessages#decode}), which reads whatever an
 * authenticated peer sends. Properties for every input: the decoder either refuses it with a
 * {@link MalformedFrameException} (never another exception, never a huge allocation) or returns
 * a message whose encoding is exactly the input. So a damaged frame is never read as another
 * message.
 *
 * <p>Input ({@link #check}): byte 0 even = the rest is a frame body (id and payload) as it is;
 * odd = byte 1 picks one of the {@link RpcExamples} and the rest mutates its body (flip a bit,
 * set a byte, set an int32, truncate, append), the mutated bytes are decoded. Under plain
 * {@code mvn test} the {@link FuzzTest} replays the seeds in {@code src/test/resources/dev/tide/
 * rpc/RpcMessagesFuzzTestInputs/decoderRefusesOrReadsExactly/} (regenerate with {@link #main})
 * and {@link #randomAndMutatedFramesWithAFixedSeed} runs a bounded random search.
 * Coverage-guided:
 * <pre>
 *   JAZZER_FUZZ=1 mvn -B -o -pl driver-runtime test -Dtest=RpcMessagesFuzzTest \
 *       -Djazzer.max_duration=60s
 * </pre>
 * (and every build without {@code -DskipFuzz}, profile {@code ci-fuzz}).
 */
class RpcMessagesFuzzTest {
  private static final List<RpcMessage> EXAMPLES = List.copyOf(RpcExamples.all().values());

  @FuzzTest(maxDuration = "15s")
  void decoderRefusesOrReadsExactly(byte[] input) {
    check(input);
  }

  @Test
  void randomAndMutatedFramesWithAFixedSeed() {
    SplittableRandom random = new SplittableRandom(20261127L);
    for (int i = 0; i < 20_000; i++) {
      byte[] input = new byte[random.nextInt(160)];
      random.nextBytes(input);
      if (i % 4 == 0 && input.length > 1) {
        input[1] = (byte) (64 + random.nextInt(8)); // a raw body with a (nearly) valid id
      }
      check(input);
    }
    for (byte[] seed : seeds()) {
      check(seed);
    }
  }

  /** Runs one input and checks the properties; throws on a violation. */
  static void check(byte[] input) {
    byte[] body = input.length > 0 && (input[0] & 1) == 1 ? mutatedExample(input)
        : input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length);
    RpcMessage message;
    try {
      message = RpcMessages.decode(Unpooled.wrappedBuffer(body));
    } catch (MalformedFrameException refused) {
      return;
    }
    assertArrayEquals(body, RpcExamples.body(message), "an accepted frame is exactly its message");
  }

  /** The body of the example {@code input[1]} picks, mutated as the rest of the input says. */
  static byte[] mutatedExample(byte[] input) {
    ByteBuffer in = ByteBuffer.wrap(input, 1, input.length - 1);
    int pick = in.hasRemaining() ? (in.get() & 0xFF) % EXAMPLES.size() : 0;
    byte[] bytes = RpcExamples.body(EXAMPLES.get(pick));
    while (in.remaining() >= 3) {
      int op = in.get() & 7;
      int at = in.getShort() & 0xffff;
      int pos = bytes.length == 0 ? 0 : at % bytes.length;
      switch (op) {
        case 0, 5 -> { // flip a bit
          if (bytes.length > 0) {
            bytes[pos] ^= (byte) (1 << (at >>> 13));
          }
        }
        case 1, 6 -> { // set a byte
          if (bytes.length > 0 && in.hasRemaining()) {
            bytes[pos] = in.get();
          }
        }
        case 2 -> { // set an int32 (a length, a count), e.g. huge or negative
          if (bytes.length >= 4 && in.remaining() >= 4) {
            ByteBuffer.wrap(bytes).putInt(Math.min(pos, bytes.length - 4), in.getInt());
          }
        }
        case 3 -> bytes = Arrays.copyOf(bytes, pos);
        default -> bytes = Arrays.copyOf(bytes, bytes.length + 1 + at % 16);
      }
    }
    return bytes;
  }

  /** Seeds: every example as it is, raw and as an unmutated pick, and mutations of them. */
  static List<byte[]> seeds() {
    List<byte[]> seeds = new ArrayList<>();
    for (int i = 0; i < EXAMPLES.size(); i++) {
      byte[] body = RpcExamples.body(EXAMPLES.get(i));
      byte[] raw = new byte[body.length + 1];
      System.arraycopy(body, 0, raw, 1, body.length);
      seeds.add(raw);
      seeds.add(new byte[] {1, (byte) i});
      seeds.add(new byte[] {1, (byte) i, 2, 0, 5, (byte) 0x7f, (byte) 0xff, (byte) 0xff, 0});
      seeds.add(new byte[] {1, (byte) i, 3, 0, 9});
      seeds.add(new byte[] {1, (byte) i, 1, 0, 9, 3, 4, 0, 2});
    }
    return seeds;
  }

  /** Writes {@link #seeds()} as the FuzzTest's seed corpus into the directory given. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    List<byte[]> seeds = seeds();
    for (int i = 0; i < seeds.size(); i++) {
      Files.write(dir.resolve(String.format("seed-%02d", i)), seeds.get(i));
    }
  }
}
