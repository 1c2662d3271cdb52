package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The driver's one thread: order, errors handed on (never lost), periodic work, stopping. */
class EventLoopTest {
  private static final long WAIT_SECONDS = 30;
  private final List<Throwable> errors = new CopyOnWriteArrayList<>();
  private final EventLoop loop = new EventLoop("test-loop", errors::add);

  @AfterEach
  void stop() {
    loop.stop(Duration.ofSeconds(5));
  }

  @Test
  void workRunsInTheOrderPostedOnTheLoopsThread() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      loop.post(() -> seen.add(n + " on " + Thread.currentThread().getName()));
    }
    assertEquals(List.of("0 on test-loop", "1 on test-loop", "2 on test-loop"),
        loop.call(() -> List.copyOf(seen)));
  }

  @Test
  void anErrorThrownByPostedWorkReachesTheHandlerAndTheLoopGoesOn() throws Exception {
    NoSuchMethodError error = new NoSuchMethodError("Partitioner.partition");
    loop.post(() -> {
      throw error;
    });
    assertEquals("next", loop.call(() -> "next"), "work after it still runs");
    assertEquals(List.of(error), errors);
  }

  @Test
  void callThrowsWhatItsWorkThrewAndTheHandlerHearsOfIt() throws Exception {
    IllegalArgumentException thrown = new IllegalArgumentException("bad plan");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> loop.call(() -> {
      throw thrown;
    }));
    assertSame(thrown, e.getCause());
    assertEquals(List.of(thrown), loop.call(() -> List.copyOf(errors)));
  }

  @Test
  void periodicWorkGoesOnAfterARunThrows() throws Exception {
    CountDownLatch threeRuns = new CountDownLatch(3);
    AtomicInteger runs = new AtomicInteger();
    loop.every(10, () -> {
      threeRuns.countDown();
      if (runs.incrementAndGet() == 1) {
        throw new IllegalStateException("first tick");
      }
    });
    assertTrue(threeRuns.await(WAIT_SECONDS, TimeUnit.SECONDS), "ran " + runs + " times");
    assertEquals(List.of("first tick"),
        loop.call(() -> errors.stream().map(Throwable::getMessage).toList()));
  }

  @Test
  void stopRunsWhatWasPostedAndDropsWhatComesAfter() {
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean before = new AtomicBoolean();
    loop.post(() -> {
      try {
        release.await(WAIT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    loop.post(() -> before.set(true));
    release.countDown();
    loop.stop(Duration.ofSeconds(WAIT_SECONDS));
    assertTrue(before.get(), "work posted before stop ran");
    assertTrue(loop.isStopped());
    AtomicBoolean after = new AtomicBoolean();
    loop.post(() -> after.set(true));
    assertFalse(after.get(), "work posted after stop is dropped");
    assertEquals(List.of(), errors, "and throws nothing");
  }
}
