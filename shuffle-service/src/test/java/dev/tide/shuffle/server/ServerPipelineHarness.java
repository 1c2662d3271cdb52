package dev.tide.shuffle.server;

import dev.tide.network.SecureChannels;
import dev.tide.network.ThrottledLog;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.MessageTypes;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.protocol.ShuffleMessages;
import dev.tide.shuffle.testing.MapOutputs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's per-connection pipeline (frame decoder, handshake, fetch handler) on
 * {@link EmbeddedChannel}s over shared server state (registry, resolver, index cache, in-flight
 * counter, stats) and real map output files, with disk work run inline. Every buffer the
 * pipeline allocates, and every input buffer, comes from one instrumented allocator, so a test
 * can bound the memory in use and see leaks. Replies are checked to be well-formed frames as
 * they leave. One harness per JVM is enough; channels are cheap. Not thread-safe.
 */
final class ServerPipelineHarness {
  static final String APP = "application_1700000000000_0001";
  static final String OTHER_APP = "application_1700000000000_0002";
  static final byte[] SECRET = "fuzz-secret".getBytes(StandardCharsets.UTF_8);
  static final int MAX_FRAME_BYTES = 4096;
  /** Map outputs of shuffle 0: maps 0-2 fine, map 3 has a corrupt index, map 4 is missing. */
  static final int[] LENGTHS = {7, 0, 300, 5};

  final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, false, false);
  final ServerStats stats = new ServerStats();
  final AtomicLong inFlight = new AtomicLong();
  private final ThrottledLog log = new ThrottledLog(
      org.slf4j.LoggerFactory.getLogger(ServerPipelineHarness.class), Duration.ofSeconds(10),
      System::nanoTime);
  private final ApplicationRegistry registry = new ApplicationRegistry();
  private final ShuffleServerConfig config;
  private final MapOutputResolver resolver;
  private final ShortRangeCopier copier;

  ServerPipelineHarness() {
    try {
      Path nm = Files.createTempDirectory("tide-fuzz-nm");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(nm)));
      Path appDir = ShuffleLayout.appLocalDir(nm, "alice", APP);
      for (int m = 0; m < 4; m++) {
        MapOutputs.write(appDir, 0, m, LENGTHS, 1);
      }
      Files.write(ShuffleLayout.indexFile(appDir, 0, 3), new byte[20]);
      config = ShuffleServerConfig.builder().localDirs(List.of(nm))
          .maxRequestFrameBytes(MAX_FRAME_BYTES).maxBlocksPerRequest(64).maxReplyBytes(4096)
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    registry.register(APP, "alice", SECRET);
    registry.register(OTHER_APP, "bob", "other-secret".getBytes(StandardCharsets.UTF_8));
    copier = new ShortRangeCopier(config.copyBelowBytes(), config.maxCopiedBytes());
    resolver = new MapOutputResolver(config.localDirs(), new IndexCache(1 << 16),
        config.maxReplyBytes(), new DataFiles(ShuffleServer.IDLE_OPEN_FILES, stats),
        System::currentTimeMillis);
  }

  /** Copies go nowhere in the harness: every target refuses to connect. */
  private MapOutputMigrator migrator;

  private MapOutputMigrator migrator() {
    if (migrator == null) {
      migrator = new MapOutputMigrator(resolver, stats, bytes -> { },
          app -> new dev.tide.shuffle.client.ShuffleClient(app.appId(), app.secret(),
              dev.tide.shuffle.client.ShuffleClientConfig.DEFAULTS.withConnectRetries(0,
                  java.time.Duration.ofMillis(1))), System::nanoTime, MAX_FRAME_BYTES);
    }
    return migrator;
  }

  /** A new server-side connection, not yet authenticated, doing its disk work inline. */
  EmbeddedChannel newConnection() {
    return newConnection(Runnable::run);
  }

  /** A new server-side connection whose disk work goes to {@code diskExecutor}. */
  EmbeddedChannel newConnection(java.util.concurrent.Executor diskExecutor) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setAllocator(alloc);
    SecureChannels.initServer(ch, registry, MAX_FRAME_BYTES, Duration.ofSeconds(10),
        new FetchRequestHandler(registry, resolver, copier, diskExecutor, inFlight, config,
            stats, () -> 0L, log, new FetchRequestHandler.Migration(migrator(), diskExecutor,
                new java.util.concurrent.atomic.AtomicLong(), ShuffleServer.MAX_PUSH_QUEUED_BYTES)));
    return ch;
  }

  /** Runs a real client handshake for {@link #APP} against {@code server}. */
  void authenticate(EmbeddedChannel server) {
    EmbeddedChannel client = new EmbeddedChannel();
    var done = SecureChannels.initClient(client, APP, SECRET, 1 << 20);
    for (int round = 0; round < 4 && !done.isDone(); round++) {
      for (Object out; (out = client.readOutbound()) != null; ) {
        server.writeInbound(out);
      }
      server.runPendingTasks();
      for (Object out; (out = server.readOutbound()) != null; ) {
        client.writeInbound(out);
      }
    }
    client.finishAndReleaseAll();
    if (!done.isSuccess()) {
      throw new AssertionError("harness handshake failed", done.cause());
    }
  }

  /**
   * Makes the peer stop (false) or resume (true) reading what the server writes, as the
   * server sees it: the channel turns unwritable, and writable again.
   */
  void peerReads(EmbeddedChannel server, boolean reading) {
    if (!server.isOpen()) {
      return;
    }
    server.unsafe().outboundBuffer().setUserDefinedWritability(1, reading);
    server.runPendingTasks();
  }

  /** Feeds raw bytes to the connection and runs what they set off (disk work is inline). */
  void feed(EmbeddedChannel server, byte[] bytes) {
    if (!server.isOpen()) {
      return;
    }
    ByteBuf in = alloc.heapBuffer(bytes.length).writeBytes(bytes);
    server.writeInbound(in);
    server.runPendingTasks();
  }

  /**
   * Takes everything the server wrote, checks each frame is well-formed (a FETCH_REPLY header
   * is followed by file regions and copied buffers of exactly the announced data), releases
   * it, and returns the decoded shuffle messages (handshake frames are checked for a sane
   * length only).
   */
  List<ShuffleMessage> drainReplies(EmbeddedChannel server) {
    List<ShuffleMessage> replies = new ArrayList<>();
    long dataOwed = 0;
    for (Object out; (out = server.readOutbound()) != null; ) {
      try {
        if (out instanceof FileRegion region) {
          dataOwed -= region.count();
          if (dataOwed < 0) {
            throw new AssertionError("file region past the announced reply data");
          }
          continue;
        }
        if (dataOwed > 0) {
          // Short ranges are sent from memory: a buffer of reply data, not a frame.
          dataOwed -= ((ByteBuf) out).readableBytes();
          if (dataOwed < 0) {
            throw new AssertionError("copied data past the announced reply data");
          }
          continue;
        }
        if (dataOwed != 0) {
          throw new AssertionError(dataOwed + " bytes of reply data missing before next frame");
        }
        ByteBuf frame = (ByteBuf) out;
        int length = frame.readInt();
        byte type = frame.getByte(frame.readerIndex());
        if (length < 1) {
          throw new AssertionError("server wrote a frame of length " + length);
        }
        if (type >= 16) {
          ShuffleMessage m = type == MessageTypes.FETCH_REPLY
              ? replyHeader(frame, length) : ShuffleMessages.decode(frame);
          if (m instanceof FetchReply reply) {
            dataOwed = reply.dataLength();
          } else if (!(m instanceof ErrorReply || m instanceof dev.tide.shuffle.protocol.PushReply
              || m instanceof dev.tide.shuffle.protocol.MigrateReply
              || m instanceof dev.tide.shuffle.protocol.VerifyReply)) {
            throw new AssertionError("server wrote " + m);
          }
          replies.add(m);
        } else if (length != frame.readableBytes()) {
          throw new AssertionError("handshake frame length " + length + " but "
              + frame.readableBytes() + " bytes");
        }
      } finally {
        ReferenceCountUtil.release(out);
      }
    }
    if (dataOwed != 0) {
      throw new AssertionError(dataOwed + " bytes of reply data never written");
    }
    return replies;
  }

  /** Reads a FETCH_REPLY header frame (its data follows as file regions). */
  private static FetchReply replyHeader(ByteBuf frame, int length) {
    int count = frame.getInt(frame.readerIndex() + 1 + 8);
    int headerBody = 1 + 8 + 4 + 16 * count;
    if (headerBody != frame.readableBytes()) {
      throw new AssertionError("reply header of " + frame.readableBytes() + " bytes announces "
          + count + " blocks");
    }
    long[] lengths = new long[count];
    long[] checksums = new long[count];
    long data = 0;
    for (int i = 0; i < count; i++) {
      lengths[i] = frame.getLong(frame.readerIndex() + 13 + 16 * i);
      checksums[i] = frame.getLong(frame.readerIndex() + 21 + 16 * i);
      data += lengths[i];
    }
    if (length != headerBody + data) {
      throw new AssertionError("reply frame length " + length + " != header " + headerBody
          + " + data " + data);
    }
    return new FetchReply(frame.getLong(frame.readerIndex() + 1), lengths, checksums);
  }

  /** Closes the connection, releasing what is left. */
  void close(EmbeddedChannel server) {
    server.close();
    server.runPendingTasks();
    drainReplies(server);
    server.finishAndReleaseAll();
  }

  private static void deleteTree(Path root) {
    try (var paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: it is a temp dir.
    }
  }

  long memoryInUse() {
    return alloc.metric().usedHeapMemory() + alloc.metric().usedDirectMemory();
  }
}
