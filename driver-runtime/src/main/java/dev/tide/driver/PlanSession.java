package dev.tide.driver;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;

/**
 * The {@link JobSession} a job's {@code run} gets, on the driver's job thread: each
 * {@link #run} hands the plan to the driver's event loop ({@code start}) and waits for the
 * driver to complete the plan's future, with null on success or why it failed; each
 * {@link #expect} hands the announcement to the event loop the same way ({@code expect}).
 */
final class PlanSession implements JobSession {
  private final JobContext context;
  private final BiConsumer<JobPlan, CompletableFuture<String>> start;
  private final BiConsumer<Integer, Duration> expect;
  private int plans;

  /** A session whose announcements of work ahead go nowhere (a stream's batches). */
  PlanSession(JobContext context, BiConsumer<JobPlan, CompletableFuture<String>> start) {
    this(context, start, (executors, within) -> {});
  }

  /**
   * @param start posts the plan to the driver's event loop; never blocks
   * @param expect posts an announcement of work ahead to the driver's event loop; never blocks
   */
  PlanSession(JobContext context, BiConsumer<JobPlan, CompletableFuture<String>> start,
      BiConsumer<Integer, Duration> expect) {
    this.context = context;
    this.start = start;
    this.expect = expect;
  }

  @Override
  public void expect(int executors, Duration within) {
    JobSession.checkExpectation(executors, within);
    expect.accept(executors, within);
  }

  @Override
  public JobContext context() {
    return context;
  }

  @Override
  public void run(JobPlan plan) throws JobFailedException, InterruptedException {
    plans++;
    CompletableFuture<String> done = new CompletableFuture<>();
    start.accept(plan, done);
    String failure;
    try {
      failure = done.get();
    } catch (ExecutionException e) {
      failure = "driver error: " + e.getCause();
    }
    if (failure != null) {
      throw new JobFailedException(failure);
    }
  }

  int plansRun() {
    return plans;
  }
}
