package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.ShuffleMessage;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the server pipeline of one connection (frame decoder, handshake, fetch handler, map
 * output resolver on real files) with structured operations decoded from the input bytes.
 * Properties checked for every input: no exception escapes the pipeline and nothing counts as
 * an internal error; every reply is a well-formed frame; the memory the pipeline holds stays
 * bounded after every operation and is all released at close (no leak, no open file, nothing
 * left in flight); and a fresh connection is served correctly afterwards.
 *
 * <p>Input format ({@link Ops}): byte 0 bit 0 = authenticate first (a real client handshake),
 * then operations, each an op byte (bits 0-2 kind, bit 3 = the peer does not read while the
 * op's bytes arrive, bits 4-5 = pieces - 1: the op's bytes are written in that many writes)
 * and its arguments; reading past the end yields zeros. While the peer does not read, the
 * server must not write more than the op's first reply.
 *
 * <p>Under plain {@code mvn test} the {@link FuzzTest} replays the seeds in
 * {@code src/test/resources/dev/tide/shuffle/server/ShuffleServerFuzzTestInputs/
 * serverPipelineSurvivesAnyInput/} (regenerate with {@link #main}), and
 * {@link #randomOperationsWithAFixedSeed} runs a bounded structure-aware random search with a
 * fixed seed. To fuzz with coverage guidance for N seconds (finds are written beside the seeds):
 * <pre>
 *   JAZZER_FUZZ=1 mvn -B -o -pl shuffle-service -am test -Dtest=ShuffleServerFuzzTest \
 *       -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration=60s
 * </pre>
 */
class ShuffleServerFuzzTest {
  private static final long MEMORY_BOUND = 256 * 1024;
  private static ServerPipelineHarness harness;

  private static synchronized ServerPipelineHarness harness() {
    if (harness == null) {
      harness = new ServerPipelineHarness();
    }
    return harness;
  }

  @FuzzTest(maxDuration = "30s")
  void serverPipelineSurvivesAnyInput(byte[] input) {
    check(input);
  }

  @Test
  void randomOperationsWithAFixedSeed() {
    Random random = new Random(20261122L);
    for (int i = 0; i < 600; i++) {
      byte[] input = new byte[random.nextInt(600)];
      random.nextBytes(input);
      check(input);
    }
    for (byte[] seed : seeds()) {
      check(seed);
    }
  }

  /** Runs one input and checks every property; throws on a violation. */
  static void check(byte[] input) {
    ServerPipelineHarness h = harness();
    long internalBefore = h.stats.internalErrors();
    Ops ops = new Ops(input);
    EmbeddedChannel server = h.newConnection();
    try {
      if ((ops.u8() & 1) == 1) {
        h.authenticate(server);
      }
      while (!ops.exhausted() && server.isOpen()) {
        int op = ops.u8();
        byte[] bytes = ops.operation(op & 7);
        int pieces = ((op >>> 4) & 3) + 1;
        boolean peerNotReading = (op & 8) != 0;
        if (peerNotReading) {
          h.peerReads(server, false);
        }
        int at = 0;
        for (int p = 1; p <= pieces; p++) {
          int end = p == pieces ? bytes.length : Math.min(bytes.length, at + bytes.length / pieces);
          byte[] piece = new byte[end - at];
          System.arraycopy(bytes, at, piece, 0, piece.length);
          h.feed(server, piece);
          at = end;
        }
        server.checkException();
        if (peerNotReading) {
          // The server stops handling frames once its replies are not read: the op's first
          // frame may be answered (and a broken stream's last word), nothing after it.
          List<ShuffleMessage> written = h.drainReplies(server);
          if (written.size() > 2) {
            throw new AssertionError(written.size() + " replies written to a peer that does"
                + " not read: " + written);
          }
          h.peerReads(server, true);
        }
        h.drainReplies(server);
        long held = h.memoryInUse();
        if (held > MEMORY_BOUND) {
          throw new AssertionError("pipeline holds " + held + " bytes");
        }
      }
    } finally {
      h.close(server);
    }
    assertEquals(0, h.memoryInUse(), "bytes leaked");
    assertEquals(0, h.stats.openFiles(), "files left open");
    assertEquals(0, h.inFlight.get(), "bytes left in flight");
    assertEquals(internalBefore, h.stats.internalErrors(), "internal errors");
    assertBystanderServed(h);
  }

  private static void assertBystanderServed(ServerPipelineHarness h) {
    EmbeddedChannel bystander = h.newConnection();
    try {
      h.authenticate(bystander);
      h.feed(bystander, Ops.fetchFrame(77, ServerPipelineHarness.APP, 1, 0, 0, 0, 3));
      List<ShuffleMessage> replies = h.drainReplies(bystander);
      assertEquals(1, replies.size(), replies.toString());
      FetchReply reply = assertInstanceOf(FetchReply.class, replies.get(0));
      assertEquals(77, reply.requestId());
      assertEquals(7 + 0 + 300, reply.blockLength(0));
    } finally {
      h.close(bystander);
    }
    assertTrue(h.memoryInUse() == 0, "bystander leaked");
  }

  /** Decodes operations from the fuzzer's bytes; past the end every read is 0. */
  static final class Ops {
    private final ByteBuffer in;

    Ops(byte[] input) {
      in = ByteBuffer.wrap(input);
    }

    boolean exhausted() {
      return !in.hasRemaining();
    }

    int u8() {
      return in.hasRemaining() ? in.get() & 0xFF : 0;
    }

    int s8() {
      return in.hasRemaining() ? in.get() : 0;
    }

    int u16() {
      return (u8() << 8) | u8();
    }

    int i32() {
      return (u16() << 16) | u16();
    }

    long i64() {
      return ((long) i32() << 32) | (i32() & 0xFFFFFFFFL);
    }

    byte[] bytes(int n) {
      byte[] out = new byte[Math.min(n, in.remaining())];
      in.get(out);
      return out;
    }

    byte[] appId() {
      return switch (u8() % 4) {
        case 0 -> ServerPipelineHarness.APP.getBytes(StandardCharsets.UTF_8);
        case 1 -> ServerPipelineHarness.OTHER_APP.getBytes(StandardCharsets.UTF_8);
        case 2 -> new byte[0];
        default -> bytes(u8());
      };
    }

    /** The wire bytes of one operation of the given kind (0-7). */
    byte[] operation(int kind) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      switch (kind) {
        case 0 -> out.writeBytes(bytes(u16() % 5000)); // raw bytes
        case 1 -> { // a frame with any body
          int type = u8();
          byte[] payload = bytes(u16() % 5000);
          writeInt(out, payload.length + 1);
          out.write(type);
          out.writeBytes(payload);
        }
        case 7 -> shuffleOperation(out);
        case 2 -> { // a FETCH_REQUEST with any ids, possibly lying about its block count
          long id = i64();
          byte[] app = appId();
          int count = u8() % 24;
          int declared = (u8() & 1) == 1 ? i32() : count;
          ByteArrayOutputStream body = new ByteArrayOutputStream();
          writeLong(body, id);
          writeShort(body, app.length);
          body.writeBytes(app);
          writeInt(body, declared);
          for (int i = 0; i < count * 4; i++) {
            writeInt(body, s8());
          }
          writeFrame(out, 16, body.toByteArray());
        }
        case 3 -> { // a length prefix that may lie (negative, huge, short)
          writeInt(out, i32());
          out.writeBytes(bytes(u8()));
        }
        case 4 -> { // HELLO with any version, app id and nonce
          ByteArrayOutputStream body = new ByteArrayOutputStream();
          body.write(u8() % 3);
          byte[] app = appId();
          writeShort(body, app.length);
          body.writeBytes(app);
          body.writeBytes(bytes(u8() % 40));
          writeFrame(out, 1, body.toByteArray());
        }
        case 5 -> writeFrame(out, 3, bytes(u8() % 40)); // RESPONSE with any proof
        case 6 -> { // a well-formed FETCH_REQUEST over the real map outputs
          int count = u8() % 8;
          int[] ids = new int[count * 4];
          for (int i = 0; i < count; i++) {
            int start = u8() % 5;
            ids[4 * i] = u8() % 2;
            ids[4 * i + 1] = u8() % 5;
            ids[4 * i + 2] = start;
            ids[4 * i + 3] = start + 1 + u8() % 3;
          }
          out.writeBytes(fetchFrame(i64(), ServerPipelineHarness.APP, count, ids));
        }
        default -> throw new IllegalArgumentException("kind " + kind);
      }
      return out.toByteArray();
    }

    /**
     * A shuffle protocol frame: sub-op 0 any body under a shuffle type (16-25); 1 a PUSH_OPEN
     * whose index describes all-zero segments (a byte of it possibly flipped, its data length
     * possibly lying); 2 a PUSH_DATA of zeros or of any bytes, its checksum right or not; 3 a
     * MIGRATE_REQUEST that is refused at once (another application's, or too many outputs).
     */
    private void shuffleOperation(ByteArrayOutputStream out) {
      int sub = u8() % 4;
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      switch (sub) {
        case 0 -> {
          byte[] payload = bytes(u16() % 5000);
          writeFrame(out, 16 + u8() % 10, payload);
          return;
        }
        case 1 -> {
          writeLong(body, u8() % 4);
          byte[] app = appId();
          writeShort(body, app.length);
          body.writeBytes(app);
          writeInt(body, 5 + u8() % 2);
          writeInt(body, u8() % 4);
          int partitions = 1 + u8() % 4;
          long[] lengths = new long[partitions];
          int[] crcs = new int[partitions];
          long total = 0;
          for (int r = 0; r < partitions; r++) {
            lengths[r] = u16() % 700;
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(new byte[(int) lengths[r]]);
            crcs[r] = (int) crc.getValue();
            total += lengths[r];
          }
          byte[] index = dev.tide.shuffle.MapOutputIndex.ofLengths(lengths, crcs).encode();
          int flip = u8();
          if (flip < index.length && (u8() & 1) == 1) {
            index[flip] ^= 0x10;
          }
          writeLong(body, (u8() & 1) == 1 ? total : total + s8());
          writeInt(body, index.length);
          body.writeBytes(index);
          writeFrame(out, 23, body.toByteArray());
        }
        case 2 -> {
          writeLong(body, u8() % 4);
          writeLong(body, u16() % 3000);
          boolean zeros = (u8() & 1) == 1;
          int n = u16() % 2000;
          byte[] data = zeros ? new byte[n] : bytes(n);
          java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
          crc.update(data);
          writeLong(body, (u8() & 1) == 1 ? crc.getValue() : i64());
          writeInt(body, (u8() & 7) == 7 ? i32() : data.length);
          body.writeBytes(data);
          writeFrame(out, 24, body.toByteArray());
        }
        default -> {
          writeLong(body, i64());
          byte[] app = (u8() & 1) == 1 ? ServerPipelineHarness.OTHER_APP.getBytes(
              StandardCharsets.UTF_8) : ServerPipelineHarness.APP.getBytes(StandardCharsets.UTF_8);
          writeShort(body, app.length);
          body.writeBytes(app);
          byte[] host = bytes(u8() % 20);
          writeShort(body, host.length);
          body.writeBytes(host);
          writeInt(body, u16());
          writeLong(body, i64());
          boolean other = app.length > 0 && app[app.length - 1] == '2';
          int count = other ? u8() % 4 : 65 + u8() % 4; // the harness allows 64 per request
          writeInt(body, count);
          for (int i = 0; i < count * 2; i++) {
            writeInt(body, s8());
          }
          writeFrame(out, 21, body.toByteArray());
        }
      }
    }

    static byte[] fetchFrame(long id, String app, int count, int... ids) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      writeLong(body, id);
      byte[] a = app.getBytes(StandardCharsets.UTF_8);
      writeShort(body, a.length);
      body.writeBytes(a);
      writeInt(body, count);
      for (int v : ids) {
        writeInt(body, v);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      writeFrame(out, 16, body.toByteArray());
      return out.toByteArray();
    }

    private static void writeFrame(ByteArrayOutputStream out, int type, byte[] payload) {
      writeInt(out, payload.length + 1);
      out.write(type);
      out.writeBytes(payload);
    }

    private static void writeShort(ByteArrayOutputStream out, int v) {
      out.write(v >>> 8);
      out.write(v);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
      writeShort(out, v >>> 16);
      writeShort(out, v & 0xFFFF);
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
      writeInt(out, (int) (v >>> 32));
      writeInt(out, (int) v);
    }
  }

  /**
   * Hand-made seeds, one per behaviour worth starting from: valid fetches (single, coalesced,
   * empty segment, missing map, corrupt index, range past the partitions), each malformed shape,
   * handshake abuse, split writes. {@link #main} writes them as the seed corpus.
   */
  static List<byte[]> seeds() {
    return List.of(
        seed(1, op(6, 0), 3, 0, 0, 0, 1, 0, 0, 1, 2, 1, 1, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 9),
        seed(1, op(6, 2), 1, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
        seed(1, op(6, 0), 2, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2),
        seed(1, op(6, 1), 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3),
        seed(1, op(2, 0), 0, 0, 0, 0, 0, 0, 0, 5, 0, 2, 0, 0, 0, 0, 255, 0, 0, 0, 1),
        seed(1, op(2, 0), 0, 0, 0, 0, 0, 0, 0, 6, 1, 1, 1, 0x7f, 0xff, 0xff, 0xff),
        seed(1, op(2, 0), 0, 0, 0, 0, 0, 0, 0, 7, 3, 2, 0xc3, 0x28, 0, 0),
        seed(1, op(2, 0), 0, 0, 0, 0, 0, 0, 0, 8, 3, 6, '.', '.', '/', '.', '.', '/', 1, 0),
        seed(1, op(1, 0), 40, 0, 1, 0),
        seed(1, op(7, 0), 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0),
        seed(1, op(7, 2), 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
        // a push whose index describes two segments of zeros, then its data in two pieces:
        // committed; then a piece of a push that is no longer open
        seed(1, op(7, 0), 1, 2, 0, 0, 0, 1, 0, 100, 0, 50, 0, 0, 1,
            op(7, 0), 2, 2, 0, 0, 1, 0, 100, 1, 0,
            op(7, 1), 2, 2, 0, 100, 1, 0, 50, 1, 0,
            op(7, 0), 2, 2, 0, 150, 1, 0, 10, 1, 0),
        // a push whose piece fails its checksum, and one whose index is damaged
        seed(1, op(7, 0), 1, 1, 0, 0, 0, 0, 0, 64, 0, 0, 1,
            op(7, 0), 2, 1, 0, 0, 1, 0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0,
            op(7, 0), 1, 3, 0, 1, 1, 1, 0, 9, 12, 1, 1),
        // a migration request for another application, and one naming too many outputs
        seed(1, op(7, 0), 3, 0, 0, 0, 0, 0, 0, 0, 4, 1, 3, 'a', 'b', 'c', 0, 1, 0, 0, 0, 0, 0,
            0, 0, 9, 2, op(7, 0), 3, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 80, 0, 0, 0, 0, 0, 0, 0,
            0, 9, 0),
        seed(1, op(3, 0), 0xff, 0xff, 0xff, 0xfb, 4, 1, 2, 3, 4),
        seed(1, op(3, 0), 0x7f, 0xff, 0xff, 0xff, 8, 0, 0, 0, 0, 0, 0, 0, 0),
        seed(1, op(3, 1), 0, 0, 0x20, 0, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        seed(1, op(0, 3), 0, 12, 0, 0, 0, 3, 16, 0, 1, 0, 0, 0, 2, 18),
        seed(0, op(4, 0), 1, 0, 32, 1, 2, 3),
        seed(0, op(4, 0), 2, 1, 32),
        seed(0, op(4, 0), 1, 0, 32, op(5, 0), 32),
        seed(0, op(5, 0), 32),
        seed(0, op(2, 0), 0, 0, 0, 0, 0, 0, 0, 1, 0, 0),
        seed(0, op(0, 0), 0, 6, 0xff, 0xff, 0, 1, 9, 9),
        seed(1, op(6, 0), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, op(3, 0), 0, 0, 0, 0, 0),
        // a peer that does not read: many unknown frames at once, then many requests
        seed(1, op(0, 0) | 8, 0, 40, 0, 0, 0, 1, 40, 0, 0, 0, 1, 40, 0, 0, 0, 1, 40, 0, 0, 0,
            1, 40, 0, 0, 0, 1, 40, 0, 0, 0, 1, 40, 0, 0, 0, 1, 40),
        seed(1, op(6, 3) | 8, 2, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, op(6, 0) | 8,
            1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6));
  }

  private static int op(int kind, int extraPieces) {
    return kind | (extraPieces << 4);
  }

  private static byte[] seed(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  /** Writes {@link #seeds()} as the regression corpus: {@code main(<module dir>)}. */
  public static void main(String[] args) throws Exception {
    java.nio.file.Path dir = java.nio.file.Path.of(args.length > 0 ? args[0] : ".")
        .resolve("src/test/resources/dev/tide/shuffle/server/ShuffleServerFuzzTestInputs")
        .resolve("serverPipelineSurvivesAnyInput");
    java.nio.file.Files.createDirectories(dir);
    List<byte[]> seeds = seeds();
    for (int i = 0; i < seeds.size(); i++) {
      java.nio.file.Files.write(dir.resolve(String.format("seed-%02d", i)), seeds.get(i));
    }
  }
}
