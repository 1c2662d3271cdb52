package dev.tide.driver;

import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.JobSession;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;

/**
 * The {@link JobSession} a job's {@code run} gets, on the driver's job thread: each
 * {@link #run} hands the plan to the driver's event loop ({@code start}) and waits for the
 * driver to complete the plan's future, with null on success or why it failed.
 */
final class PlanSession implements JobSession {
  private final JobContext context;
  private final BiConsumer<JobPlan, CompletableFuture<String>> start;
  private int plans;

  /** @param start posts the plan to the driver's event loop; never blocks */
  PlanSession(JobContext context, BiConsumer<JobPlan, CompletableFuture<String>> start) {
    this.context = context;
    this.start = start;
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
