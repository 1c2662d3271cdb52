package dev.tide.driver.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.testing.Await;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The event log's writer: recording never waits for the file system, and nothing is lost. */
class EventLogTest {
  /** A stream whose writes wait until {@link #open} (a file system that has stalled). */
  private static final class StalledStream extends OutputStream {
    final CountDownLatch open = new CountDownLatch(1);
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    int flushes;
    boolean closed;

    @Override
    public synchronized void write(int b) {
      awaitOpen();
      written.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      awaitOpen();
      written.write(b, off, len);
    }

    @Override
    public synchronized void flush() {
      flushes++;
    }

    @Override
    public synchronized void close() {
      closed = true;
    }

    private void awaitOpen() {
      try {
        open.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    synchronized List<EventLine> lines() throws IOException {
      return EventLine.readAll(new ByteArrayInputStream(written.toByteArray()));
    }
  }

  @Test
  void recordingDoesNotWaitForAStalledFileSystemAndCloseWritesEverythingInOrder()
      throws Exception {
    StalledStream stream = new StalledStream();
    AtomicLong clock = new AtomicLong(1_000);
    EventLog log = EventLog.to(stream, "test", clock::incrementAndGet);
    // The stream takes nothing: a log that wrote on the recording thread would hang here.
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      for (int i = 0; i < 1_000; i++) {
        log.record(EventName.TASK_END, "task", i);
      }
    });
    assertEquals(0, stream.written.size(), "nothing written while the file system stalls");
    stream.open.countDown();
    log.close();
    List<EventLine> lines = stream.lines();
    assertEquals(1_000, lines.size());
    for (int i = 0; i < 1_000; i++) {
      assertEquals(i, lines.get(i).getLong("task"));
      assertEquals(1_001 + i, lines.get(i).timeMillis(), "stamped when recorded");
    }
    assertTrue(stream.closed);
    assertTrue(stream.flushes < 1_000, "flushed per batch, not per line: " + stream.flushes);
    log.record(EventName.TASK_END, "after", "close");
    assertEquals(1_000, stream.lines().size(), "nothing after close");
  }

  @Test
  void eventsFromSeveralThreadsAreAllWritten() throws Exception {
    StalledStream stream = new StalledStream();
    stream.open.countDown();
    EventLog log = EventLog.to(stream, "test", System::currentTimeMillis);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      threads.add(new Thread(() -> {
        for (int i = 0; i < 5_000; i++) {
          log.record(EventName.TIMELINE, "thread", thread, "i", i);
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    log.close();
    List<EventLine> lines = stream.lines();
    assertEquals(20_000, lines.size());
    long[] next = new long[4];
    for (EventLine line : lines) {
      int thread = (int) line.getLong("thread");
      assertEquals(next[thread]++, line.getLong("i"), "each thread's events in its order");
    }
  }

  @Test
  void aLogOnTheLocalFileSystemShowsEachEventToReadersOfTheFileAtOnce(@TempDir java.nio.file.Path dir)
      throws Exception {
    // A tool following a running job (tide timeline, the chaos suite) reads the file while the
    // driver writes it: each flush must reach the file, not a checksum buffer (4 KiB on file://).
    try (EventLog log = EventLog.open(new Configuration(), dir.toUri().toString(), "app_1",
        System::currentTimeMillis)) {
      java.nio.file.Path file = dir.resolve("app_1.events");
      for (int i = 0; i < 3; i++) {
        log.record(EventName.TASK_START, "task", "t" + i);
        int lines = i + 1;
        Await.until(Duration.ofSeconds(10), "event " + i + " in " + file, () -> java.nio.file.Files
            .readAllLines(file).size() == lines);
      }
    }
  }
}
