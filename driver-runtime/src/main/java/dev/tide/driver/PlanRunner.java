package dev.tide.driver;

import dev.tide.driver.events.EventLog;
import dev.tide.driver.events.EventName;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.output.ApplicationLiveness;
import dev.tide.output.JobOutput;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a job's plans, one at a time, through the scheduler: prepares a plan's output directory
 * and hands its stages to the {@link JobScheduler}; when the scheduler has run every stage it
 * commits the output, and when the plan fails (or the job ends under it) it deletes what the
 * plan's tasks committed. The plan's future completes with null on success, else with why it
 * failed; the job's thread waits on it ({@link PlanSession}).
 *
 * <p>Threading: owned by the driver's event loop, like the scheduler it drives.
 */
final class PlanRunner {
  private static final Logger LOG = LoggerFactory.getLogger(PlanRunner.class);

  private final Configuration conf;
  private final String appId;
  /** Tells whether the application that left an output directory behind still runs. */
  private final Supplier<ApplicationLiveness> liveness;
  private final JobScheduler scheduler;
  private final EventLog events;
  private JobPlan plan;
  /** Completed when the running plan ends (null: succeeded); null between plans. */
  private CompletableFuture<String> planDone;
  private long tasksOfPlans;

  PlanRunner(Configuration conf, String appId, Supplier<ApplicationLiveness> liveness,
      JobScheduler scheduler, EventLog events) {
    this.conf = conf;
    this.appId = appId;
    this.liveness = liveness;
    this.scheduler = scheduler;
    this.events = events;
  }

  /**
   * Prepares the output of {@code next} and hands the plan to the scheduler; false (and
   * {@code done} completed with why) when its output cannot be prepared.
   */
  boolean start(JobPlan next, CompletableFuture<String> done) {
    try {
      JobOutput.prepare(conf, next.outputPath(), appId, liveness.get());
    } catch (IOException e) {
      done.complete("plan " + next.name() + " could not start: " + e.getMessage());
      return false;
    }
    plan = next;
    planDone = done;
    StringBuilder stages = new StringBuilder();
    for (JobPlan.Stage stage : plan.stages()) {
      stages.append(stages.length() == 0 ? "" : ", ").append(stage.name()).append(" (")
          .append(stage.tasks()).append(stage.isInput() ? " map" : " reduce").append(" tasks")
          .append(stage.isInput() ? "" : " over stages " + stage.parents()).append(")");
    }
    LOG.info("Plan {}: {} stages: {}", plan.name(), plan.stages().size(), stages);
    events.record(EventName.PLAN_START, "plan", plan.name(), "stages", plan.stages().size(), "tasks",
        plan.totalTasks());
    scheduler.runPlan(plan);
    return true;
  }

  /**
   * After the scheduler changed: ends the running plan if it failed, or commits its output if
   * every stage has run. Does nothing between plans.
   */
  void endIfOver() {
    if (planDone != null && scheduler.failure().isPresent()) {
      endPlan(scheduler.failure().get());
    } else if (planDone != null && scheduler.isDone()) {
      try {
        JobOutput.commit(conf, plan.outputPath());
        tasksOfPlans += scheduler.tasksTotal();
        events.record(EventName.PLAN_END, "plan", plan.name(), "succeeded", true);
        endPlan(null);
      } catch (IOException e) {
        endPlan("committing the output of " + plan.name() + " failed: " + e.getMessage());
      }
    }
  }

  /** The job ends while a plan runs: the plan fails with {@code why}, its output deleted. */
  void endIfRunning(String why) {
    if (planDone != null) {
      endPlan(why);
    }
  }

  /** The plan started last (it may have ended), or null before the first. */
  JobPlan plan() {
    return plan;
  }

  /** Whether a plan runs now (started, not yet ended). */
  boolean isRunning() {
    return planDone != null;
  }

  /** Tasks of the plans that succeeded so far. */
  long tasksOfPlans() {
    return tasksOfPlans;
  }

  /** Completes the running plan: null on success (output committed), else why it failed. */
  private void endPlan(String failure) {
    if (failure != null) {
      abortOutput();
      events.record(EventName.PLAN_END, "plan", plan.name(), "succeeded", false);
    }
    CompletableFuture<String> done = planDone;
    planDone = null;
    done.complete(failure);
  }

  /** A failed plan leaves no output: what its tasks committed is deleted. */
  private void abortOutput() {
    try {
      JobOutput.abort(conf, plan.outputPath());
    } catch (IOException e) {
      LOG.warn("Could not delete the output {} of failed plan {}", plan.outputPath(),
          plan.name(), e);
    }
  }
}
