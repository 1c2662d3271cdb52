package dev.tide.driver;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's one thread, which owns all its scheduling state: work posted from any thread runs
 * there in the order posted. Whatever a piece of work throws, errors too (a user class's
 * {@code NoSuchMethodError} in a partitioner, say), is logged and handed to the error handler
 * (the driver fails the job): otherwise it would only end that piece of work, silently, and leave
 * the job waiting for what it would have done.
 */
final class EventLoop {
  private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class);
  private final ScheduledExecutorService executor;
  private final Consumer<Throwable> onError;

  /** A daemon thread named {@code threadName}; {@code onError} runs on it. */
  EventLoop(String threadName, Consumer<Throwable> onError) {
    this.onError = onError;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /** Runs {@code work} on the loop after what was posted before; dropped once stopped. */
  void post(Runnable work) {
    try {
      executor.execute(() -> guarded("event", work));
    } catch (RejectedExecutionException e) {
      LOG.debug("Driver stopped; dropping an event");
    }
  }

  /**
   * Runs {@code work} on the loop and waits for its result. What it throws also goes to the
   * error handler, and is thrown here as the cause of an {@link IllegalStateException}.
   */
  <T> T call(Supplier<T> work) throws InterruptedException {
    CompletableFuture<T> done = new CompletableFuture<>();
    post(() -> {
      try {
        done.complete(work.get());
      } catch (RuntimeException | Error e) {
        done.completeExceptionally(e);
        throw e;
      }
    });
    try {
      return done.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("driver error: " + e.getCause(), e.getCause());
    }
  }

  /**
   * Runs {@code work} on the loop every {@code periodMillis}, the first time one period from now;
   * a run that throws goes to the error handler, and the next runs still come.
   */
  void every(long periodMillis, Runnable work) {
    executor.scheduleWithFixedDelay(() -> guarded("tick", work), periodMillis, periodMillis,
        TimeUnit.MILLISECONDS);
  }

  /** Whether {@link #stop} was called. Any thread. */
  boolean isStopped() {
    return executor.isShutdown();
  }

  /**
   * Takes no more work and waits, up to {@code wait}, for the work already posted to run; the
   * periodic work stops.
   */
  void stop(Duration wait) {
    executor.shutdown();
    try {
      executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void guarded(String what, Runnable work) {
    try {
      work.run();
    } catch (Throwable t) {
      LOG.error("Driver {} failed", what, t);
      onError.accept(t);
    }
  }
}
