package dev.tide.shuffle.client;

import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import io.netty.channel.Channel;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fetch's {@link BlockReader.Offload}: work handed over on the I/O thread waits in a queue
 * that the fetching thread runs while it waits for the reply ({@link #runUntilDone}). Too much
 * waiting work turns the connection's reading off (Netty's autoRead) until half of it has run.
 */
final class CallerRunsQueue implements BlockReader.Offload {
  private record Work(long bytes, Runnable run) {}

  /** Queued when the reply is complete: nothing of this fetch comes after it. */
  private static final Work END = new Work(0, () -> {});

  private final long pauseAboveBytes;
  private final BlockingQueue<Work> queue = new LinkedBlockingQueue<>();
  private final AtomicLong waitingBytes = new AtomicLong();
  private volatile Channel channel;
  /** The fetching thread gave up (interrupted): later work is dropped, reading never paused. */
  private volatile boolean abandoned;
  private boolean paused;

  CallerRunsQueue(long pauseAboveBytes) {
    this.pauseAboveBytes = pauseAboveBytes;
  }

  void receivingOn(Channel ch) {
    channel = ch;
  }

  @Override
  public void submit(long bytes, Runnable work) {
    if (abandoned) {
      return;
    }
    queue.add(new Work(bytes, work));
    waitingBytes.addAndGet(bytes);
    updatePause();
  }

  /**
   * On the fetching thread: runs the handed-over work, in order, until the reply is complete
   * and all of its work has run. Returns the reply (done); failed when the thread was
   * interrupted or a piece of work threw.
   */
  <T> CompletableFuture<T> runUntilDone(CompletableFuture<T> reply) {
    reply.whenComplete((value, failure) -> queue.add(END));
    RuntimeException failed = null;
    try {
      for (Work work = queue.take(); work != END; work = queue.take()) {
        try {
          if (failed == null) {
            work.run().run();
          }
        } catch (RuntimeException e) {
          failed = e; // the rest is skipped; the reply is still read to its end
        }
        waitingBytes.addAndGet(-work.bytes());
        updatePause();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      abandoned = true;
      return CompletableFuture.failedFuture(new FetchFailure(Reason.TIMEOUT,
          "interrupted while reading the reply", List.of(), e));
    } finally {
      waitingBytes.set(0);
      updatePause();
    }
    if (failed != null && !reply.isCompletedExceptionally()) {
      return CompletableFuture.failedFuture(new FetchFailure(Reason.PROTOCOL, "reading the"
          + " reply failed: " + failed, List.of(), failed));
    }
    return reply;
  }

  /**
   * Pauses above the bound, resumes at half of it. Both threads call it after changing the
   * waiting bytes, and it reads them under the lock: whichever calls last decides, so a pause
   * cannot outlive the work that caused it.
   */
  private synchronized void updatePause() {
    Channel ch = channel;
    long waiting = waitingBytes.get();
    boolean pause = paused ? waiting > pauseAboveBytes / 2 : waiting > pauseAboveBytes;
    if (paused == pause || ch == null) {
      return;
    }
    paused = pause;
    ch.config().setAutoRead(!pause);
  }
}
