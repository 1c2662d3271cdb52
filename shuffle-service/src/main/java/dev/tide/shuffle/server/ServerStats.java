package dev.tide.shuffle.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * What one {@link ShuffleServer} has done and holds right now: monotonic counters and current
 * levels, updated by the event loops and disk threads, read by metrics at any time. Also
 * forwards each served fetch's latency to an optional listener (the NodeManager adapter feeds
 * its quantiles with it). One instance per server; thread-safe (adders and atomics).
 */
public final class ServerStats {
  private final AtomicInteger openConnections = new AtomicInteger();
  private final AtomicInteger unauthenticatedConnections = new AtomicInteger();
  private final AtomicInteger activeFetches = new AtomicInteger();
  private final AtomicInteger openFiles = new AtomicInteger();
  private final AtomicInteger idleOpenFiles = new AtomicInteger();
  private final LongAdder fetchesServed = new LongAdder();
  private final LongAdder fetchesFailed = new LongAdder();
  private final LongAdder bytesServed = new LongAdder();
  private final LongAdder blocksServed = new LongAdder();
  private final LongAdder authFailures = new LongAdder();
  private final LongAdder busyReplies = new LongAdder();
  private final LongAdder connectionsRefused = new LongAdder();
  private final LongAdder idleClosed = new LongAdder();
  private final LongAdder internalErrors = new LongAdder();
  private final LongAdder badFrames = new LongAdder();
  private final LongAdder unauthenticatedPushedOut = new LongAdder();
  private final LongAdder zeroCopyBytes = new LongAdder();
  private final LongAdder verifiesServed = new LongAdder();
  private final LongAdder verifiedDamaged = new LongAdder();
  private final LongAdder migratedOut = new LongAdder();
  private final LongAdder migratedOutBytes = new LongAdder();
  private final LongAdder migrationsOutFailed = new LongAdder();
  private final LongAdder migrationThrottledNanos = new LongAdder();
  private final LongAdder pushesReceived = new LongAdder();
  private final LongAdder pushedBytesReceived = new LongAdder();
  private final LongAdder pushesRefused = new LongAdder();
  private final LongConsumer fetchLatencyNanos;

  /** @param fetchLatencyNanos told the latency of every served fetch; may be a no-op */
  public ServerStats(LongConsumer fetchLatencyNanos) {
    this.fetchLatencyNanos = fetchLatencyNanos;
  }

  public ServerStats() {
    this(nanos -> { });
  }

  /** Counts a new connection unless {@code max} are open already; false if refused. */
  boolean tryOpenConnection(int max) {
    while (true) {
      int now = openConnections.get();
      if (now >= max) {
        return false;
      }
      if (openConnections.compareAndSet(now, now + 1)) {
        return true;
      }
    }
  }

  void unauthenticatedOpened() {
    unauthenticatedConnections.incrementAndGet();
  }

  void unauthenticatedDone() {
    unauthenticatedConnections.decrementAndGet();
  }

  void unauthenticatedClosedForRoom() {
    unauthenticatedPushedOut.increment();
  }

  void badFrame() {
    badFrames.increment();
  }

  void connectionClosed() {
    openConnections.decrementAndGet();
  }

  void connectionRefused() {
    connectionsRefused.increment();
    busyReplies.increment();
  }

  void fetchStarted() {
    activeFetches.incrementAndGet();
  }

  void fetchServed(int blocks, long bytes, long latencyNanos) {
    activeFetches.decrementAndGet();
    fetchesServed.increment();
    blocksServed.add(blocks);
    bytesServed.add(bytes);
    fetchLatencyNanos.accept(latencyNanos);
  }

  void fetchFailed() {
    activeFetches.decrementAndGet();
    fetchesFailed.increment();
  }

  /** A VERIFY_REQUEST answered with what the disk holds; {@code damaged}: not what was written. */
  void verified(boolean damaged) {
    verifiesServed.increment();
    if (damaged) {
      verifiedDamaged.increment();
    }
  }

  void authFailed() {
    authFailures.increment();
  }

  void busyReplied() {
    busyReplies.increment();
  }

  void zeroCopySent(long bytes) {
    zeroCopyBytes.add(bytes);
  }

  void internalError() {
    internalErrors.increment();
  }

  void idleClosed() {
    idleClosed.increment();
  }

  void fileOpened() {
    openFiles.incrementAndGet();
  }

  void fileClosed() {
    openFiles.decrementAndGet();
  }

  void idleFileOpened() {
    idleOpenFiles.incrementAndGet();
  }

  void idleFileClosed() {
    idleOpenFiles.decrementAndGet();
  }

  /** Connections open now (authenticated or not, refused ones excluded). */
  public int openConnections() { return openConnections.get(); }
  /** Connections open now that have not authenticated yet. */
  public int unauthenticatedConnections() { return unauthenticatedConnections.get(); }
  /** Connections closed before they authenticated to make room for newer ones. */
  public long unauthenticatedPushedOut() { return unauthenticatedPushedOut.sum(); }
  /** Frames from authenticated peers refused as malformed (unparseable, too long, not a
   * request, or a broken frame stream). */
  public long badFrames() { return badFrames.sum(); }
  /** Fetch requests accepted and not yet answered. */
  public int activeFetches() { return activeFetches.get(); }
  /** Data files open for replies being sent. */
  public int openFiles() { return openFiles.get(); }
  /** Data files kept open for later replies while no reply reads them. */
  public int idleOpenFiles() { return idleOpenFiles.get(); }
  /** Fetch requests answered with data. */
  public long fetchesServed() { return fetchesServed.sum(); }
  /** Fetch requests accepted and then answered with an error (including BUSY). */
  public long fetchesFailed() { return fetchesFailed.sum(); }
  /** Block data bytes sent (headers excluded). */
  public long bytesServed() { return bytesServed.sum(); }
  public long blocksServed() { return blocksServed.sum(); }
  /** Handshakes refused (wrong secret, unknown application, malformed, timed out). */
  public long authFailures() { return authFailures.sum(); }
  /** BUSY answers, to requests and to connections. */
  public long busyReplies() { return busyReplies.sum(); }
  /** Connections refused with BUSY (too many connections or too much direct memory). */
  public long connectionsRefused() { return connectionsRefused.sum(); }
  /** Unexpected failures (a bug or an environment problem): INTERNAL replies and connections
   * closed on an unexpected exception. */
  public long internalErrors() { return internalErrors.sum(); }
  /** Block data bytes that left through zero-copy file regions (counted when each region is
   * released, i.e. sent or abandoned). */
  public long zeroCopyBytes() { return zeroCopyBytes.sum(); }
  /** VERIFY_REQUESTs answered with the block's checksum read from disk again. */
  public long verifiesServed() { return verifiesServed.sum(); }
  /** Of those, blocks whose bytes on disk no longer match the checksum their map task wrote. */
  public long verifiedDamaged() { return verifiedDamaged.sum(); }
  /** Connections closed for being idle. */
  public long idleConnectionsClosed() { return idleClosed.sum(); }

  void migratedOut(long bytes) {
    migratedOut.increment();
    migratedOutBytes.add(bytes);
  }

  void migrationOutFailed() {
    migrationsOutFailed.increment();
  }

  void migrationThrottled(long nanos) {
    migrationThrottledNanos.add(nanos);
  }

  void pushReceived(long bytes) {
    pushesReceived.increment();
    pushedBytesReceived.add(bytes);
  }

  void pushRefused() {
    pushesRefused.increment();
  }

  /** Map outputs this service copied to another one (confirmed by it). */
  public long migratedOut() { return migratedOut.sum(); }
  /** Data bytes of those map outputs. */
  public long migratedOutBytes() { return migratedOutBytes.sum(); }
  /** Map outputs this service was asked to copy and did not (missing, refused, timed out). */
  public long migrationsOutFailed() { return migrationsOutFailed.sum(); }
  /** Time copies waited for {@code tide.shuffle.migration.maxBytesPerSec}, in nanoseconds. */
  public long migrationThrottledNanos() { return migrationThrottledNanos.sum(); }
  /** Map outputs another service pushed here, verified and committed. */
  public long pushesReceived() { return pushesReceived.sum(); }
  /** Data bytes of those map outputs. */
  public long pushedBytesReceived() { return pushedBytesReceived.sum(); }
  /** Pushes refused (unknown application, bad checksum, bad message, no local dir ...). */
  public long pushesRefused() { return pushesRefused.sum(); }
}
