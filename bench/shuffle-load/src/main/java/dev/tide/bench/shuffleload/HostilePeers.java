package dev.tide.bench.shuffleload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The adversarial peers of the hostile mix (issue 17), each on its own threads of plain blocking
 * sockets ({@link RawPeer}), all against one server on 127.0.0.1:
 *
 * <ul>
 *   <li>{@code nonreaders}: authenticate for the adversary application, then write 5-byte frames
 *       of an unknown type as fast as the server takes them and never read a reply;
 *   <li>{@code partialHellos}: held at once, each sends a frame length of 1 MiB and all but the
 *       last KiB of the body, then stalls until the server's handshake timeout has passed, and
 *       again;
 *   <li>{@code badIds}: HELLOs whose application id holds a newline, NUL, CR, an escape sequence
 *       or a Unicode line separator, followed by a wrong proof (so the server logs the id);
 *   <li>{@code notFoundRequests}: authenticated FETCH_REQUESTs for 10,000 blocks of map outputs
 *       that do not exist, one at a time, reading each reply;
 *   <li>{@code resets}: connect and reset at once (SO_LINGER 0);
 *   <li>{@code idle}: connect and send nothing, {@code idleAtOnce} at a time, until the server's
 *       handshake timeout has closed them.
 * </ul>
 *
 * Counts of 0 switch a peer off. Every peer stops at {@link #stop()} (which closes every socket,
 * unblocking reads and writes) or when its count is done; nothing outlives the bench.
 * Thread-safe: the counters are read while the peers run.
 */
final class HostilePeers {
  /** Frames of this type are not in the shuffle protocol (16-63 owned, 16-18 used). */
  private static final byte UNKNOWN_TYPE = 63;
  private static final int MIB = 1 << 20;
  private static final String[] BAD_IDS = {
      "application_1_1\nFORGED line after a newline",
      "application_1_1\u0000after a NUL",
      "application_1_1\rFORGED after a carriage return",
      "application_1_1\u001b[2J\u001b[HFORGED after an ANSI clear-screen",
      "application_1_1\u2028FORGED after a Unicode line separator",
      "application_1_1" + "\n".repeat(200) + "FORGED after 200 newlines",
  };

  /** How many of each, and the adversary application's credentials. */
  record Settings(int nonreaders, int partialHellos, int badIds, int notFoundRequests,
      int resets, int idle, int idleAtOnce, long stallMillis, String appId, byte[] secret) {}

  private final Settings settings;
  private final int port;
  private final Set<RawPeer> open = ConcurrentHashMap.newKeySet();
  private final Map<String, LongAdder> counters = new ConcurrentSkipListMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private final CountDownLatch stopSignal = new CountDownLatch(1);
  private volatile boolean stopped;

  HostilePeers(Settings settings, int port) {
    this.settings = settings;
    this.port = port;
  }

  /** Starts every peer whose count is above 0; returns at once. */
  void start() {
    for (int i = 0; i < settings.nonreaders(); i++) {
      spawn("nonreader-" + i, this::nonReader);
    }
    int partialThreads = Math.min(4, settings.partialHellos());
    for (int i = 0; i < partialThreads; i++) {
      int share = settings.partialHellos() / partialThreads
          + (i < settings.partialHellos() % partialThreads ? 1 : 0);
      spawn("partialhello-" + i, () -> partialHellos(share));
    }
    if (settings.badIds() > 0) {
      spawn("badids", this::badIds);
    }
    if (settings.notFoundRequests() > 0) {
      spawn("notfound", this::notFound);
    }
    if (settings.resets() > 0) {
      spawn("churn-reset", this::resets);
    }
    if (settings.idle() > 0) {
      spawn("churn-idle", this::idle);
    }
  }

  /** Stops every peer, closes every socket and waits up to 10 s for the threads to end. */
  void stop() throws InterruptedException {
    stopped = true;
    stopSignal.countDown();
    for (RawPeer peer : open) {
      closeQuietly(peer);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
  }

  /** What the peers did so far, by peer and event, sorted by name. */
  Map<String, Long> counters() {
    Map<String, Long> snapshot = new ConcurrentSkipListMap<>();
    counters.forEach((k, v) -> snapshot.put(k, v.sum()));
    return snapshot;
  }

  private void nonReader() {
    // 5-byte frames (length 1, unknown type, no payload), 64 KiB of them per write.
    ByteBuffer frames = ByteBuffer.allocate(13_107 * 5);
    while (frames.hasRemaining()) {
      frames.putInt(1).put(UNKNOWN_TYPE);
    }
    byte[] batch = frames.array();
    while (!stopped) {
      RawPeer peer = null;
      try {
        // A tiny receive buffer: the server's replies back up into the server at once.
        peer = connect(1024);
        byte last = peer.authenticate(settings.appId(), settings.secret());
        if (last != RawPeer.OK) {
          count("nonreader.handshakeRefused(type " + last + ")");
          pause(200);
          continue;
        }
        count("nonreader.authenticated");
        while (!stopped) {
          peer.writeRaw(batch, batch.length);
          peer.flush();
          add("nonreader.framesSent", batch.length / 5);
        }
      } catch (IOException e) {
        countFailure("nonreader", e);
        pause(200);
      } finally {
        closeQuietly(peer);
      }
    }
  }

  private void partialHellos(int connections) {
    byte[] prefix = ByteBuffer.allocate(5).putInt(MIB).put(RawPeer.HELLO).array();
    byte[] body = new byte[MIB - 1 - 1024];
    body[0] = 1; // version; the rest never arrives in full
    while (!stopped) {
      long roundEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.stallMillis());
      List<RawPeer> held = new ArrayList<>();
      for (int i = 0; i < connections && !stopped; i++) {
        RawPeer peer = null;
        try {
          peer = connect(0);
          peer.writeRaw(prefix, prefix.length);
          peer.writeRaw(body, body.length);
          peer.flush();
          held.add(peer);
          count("partialhello.sent");
        } catch (IOException e) {
          countFailure("partialhello", e);
          closeQuietly(peer);
        }
      }
      pause(TimeUnit.NANOSECONDS.toMillis(roundEnd - System.nanoTime()));
      for (RawPeer peer : held) {
        closeQuietly(peer);
      }
    }
  }

  private void badIds() {
    for (int i = 0; i < settings.badIds() && !stopped; i++) {
      RawPeer peer = null;
      try {
        peer = connect(0);
        peer.readTimeout(15_000);
        peer.hello(BAD_IDS[i % BAD_IDS.length], RawPeer.randomBytes(RawPeer.NONCE_BYTES));
        RawPeer.Frame challenge = peer.readFrame(1 << 16);
        if (challenge.type() == RawPeer.CHALLENGE) {
          peer.writeFrame(RawPeer.RESPONSE, RawPeer.randomBytes(32));
          peer.flush();
          count("badids.answered(type " + peer.readFrame(1 << 16).type() + ")");
        } else {
          count("badids.refusedAtHello(type " + challenge.type() + ")");
        }
      } catch (IOException e) {
        countFailure("badids", e);
      } finally {
        closeQuietly(peer);
      }
    }
  }

  private void notFound() {
    // 10,000 blocks of 10,000 map outputs the adversary application never wrote.
    byte[] app = settings.appId().getBytes(StandardCharsets.UTF_8);
    int blocks = 10_000;
    ByteBuffer request = ByteBuffer.allocate(8 + 2 + app.length + 4 + 16 * blocks);
    request.putLong(1).putShort((short) app.length).put(app).putInt(blocks);
    for (int map = 0; map < blocks; map++) {
      request.putInt(0).putInt(map).putInt(0).putInt(1);
    }
    int sent = 0;
    while (!stopped && sent < settings.notFoundRequests()) {
      RawPeer peer = null;
      try {
        peer = connect(0);
        peer.readTimeout(30_000);
        byte last = peer.authenticate(settings.appId(), settings.secret());
        if (last != RawPeer.OK) {
          count("notfound.handshakeRefused(type " + last + ")");
          pause(200);
          continue;
        }
        for (; !stopped && sent < settings.notFoundRequests(); sent++) {
          peer.writeFrame(RawPeer.FETCH_REQUEST, request.array());
          peer.flush();
          RawPeer.Frame reply = peer.readFrame(16 * MIB);
          // ERROR payload: int64 requestId | byte code | ...
          count("notfound.reply(type " + reply.type() + (reply.payload().length > 8
              ? ", code " + reply.payload()[8] : "") + ")");
        }
      } catch (IOException e) {
        countFailure("notfound", e);
        pause(200);
      } finally {
        closeQuietly(peer);
      }
    }
  }

  private void resets() {
    for (int i = 0; i < settings.resets() && !stopped; i++) {
      try {
        RawPeer peer = connect(0);
        open.remove(peer);
        peer.reset();
        count("churn.reset");
      } catch (IOException e) {
        countFailure("churn.reset", e);
      }
      if (i % 100 == 99) {
        pause(100); // about 1,000 a second at most: churn, not a SYN flood
      }
    }
  }

  private void idle() {
    int opened = 0;
    while (!stopped && opened < settings.idle()) {
      long roundEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.stallMillis());
      List<RawPeer> held = new ArrayList<>();
      for (int i = 0; i < settings.idleAtOnce() && opened < settings.idle() && !stopped; i++) {
        try {
          held.add(connect(0));
          count("churn.idleOpened");
        } catch (IOException e) {
          countFailure("churn.idle", e);
        }
        opened++;
      }
      pause(TimeUnit.NANOSECONDS.toMillis(roundEnd - System.nanoTime()));
      for (RawPeer peer : held) {
        closeQuietly(peer);
      }
    }
  }

  private RawPeer connect(int receiveBufferBytes) throws IOException {
    if (stopped) {
      throw new IOException("stopped");
    }
    RawPeer peer = RawPeer.connect(port, receiveBufferBytes);
    open.add(peer);
    return peer;
  }

  private void closeQuietly(RawPeer peer) {
    if (peer == null) {
      return;
    }
    open.remove(peer);
    try {
      peer.close();
    } catch (IOException e) {
      // closing what the server may already have closed
    }
  }

  private void spawn(String name, Runnable peer) {
    Thread t = new Thread(peer, "hostile-" + name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  /** Counts an I/O failure by its kind; after {@link #stop()} they are our own closes. */
  private void countFailure(String peer, IOException e) {
    if (!stopped) {
      String message = String.valueOf(e.getMessage());
      count(peer + ".ioError(" + e.getClass().getSimpleName() + ": "
          + message.substring(0, Math.min(60, message.length())) + ")");
    }
  }

  private void count(String what) {
    add(what, 1);
  }

  private void add(String what, long n) {
    counters.computeIfAbsent(what, k -> new LongAdder()).add(n);
  }

  /** Waits, but not past {@link #stop()}. */
  private void pause(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      stopSignal.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopped = true;
    }
  }
}
