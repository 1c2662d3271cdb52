package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.JobSession;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JobThreadTest {
  @Test
  void whatTheJobReturnsIsItsSuccess() {
    JobResult result = JobThread.run("wc", () -> "job wc finished: 9 tasks in 1 plan");
    assertTrue(result.succeeded());
    assertEquals("job wc finished: 9 tasks in 1 plan", result.diagnostics());
  }

  @Test
  void aFailedPlanFailsTheJobWithItsMessage() {
    JobResult result = JobThread.run("wc", () -> {
      throw new JobSession.JobFailedException("plan wordcount failed: map 3 failed 4 times");
    });
    assertFalse(result.succeeded());
    assertEquals("plan wordcount failed: map 3 failed 4 times", result.diagnostics());
  }

  @Test
  void anErrorInTheJobsCodeFailsTheJobNamingIt() {
    JobResult result = JobThread.run("user", () -> {
      throw new NoSuchMethodError("'void com.example.Lib.call()'");
    });
    assertFalse(result.succeeded());
    assertTrue(result.diagnostics().startsWith("job user failed in its driver code: ")
        && result.diagnostics().contains("NoSuchMethodError")
        && result.diagnostics().contains("com.example.Lib.call"), result.diagnostics());
  }

  @Test
  void anInterruptedJobFailsAndKeepsTheInterrupt() {
    JobResult result = JobThread.run("sleep", () -> {
      throw new InterruptedException();
    });
    assertEquals("job sleep was interrupted", result.diagnostics());
    assertTrue(Thread.interrupted(), "the interrupt is kept (and cleared here)");
  }

  @Test
  void theThreadHandsItsResultOverAndIsADaemon() throws Exception {
    CompletableFuture<JobResult> ended = new CompletableFuture<>();
    CompletableFuture<Thread> ranOn = new CompletableFuture<>();
    JobThread.start("tide-job", "wc", () -> {
      ranOn.complete(Thread.currentThread());
      return "done";
    }, ended::complete);
    assertEquals("done", ended.get(30, TimeUnit.SECONDS).diagnostics());
    Thread thread = ranOn.get(30, TimeUnit.SECONDS);
    assertEquals("tide-job", thread.getName());
    assertTrue(thread.isDaemon());
  }
}
