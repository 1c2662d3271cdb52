package dev.tide.driver.alloc;

import dev.tide.driver.scheduler.JobScheduler.IdleExecutor;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch allocation policy (DESIGN.md "Allocation policy (batch)"): from the scheduler's
 * authoritative task counts it keeps a target executor count and picks idle executors to remove.
 * <ul>
 *   <li>{@code maxNeeded = ceil((pending + running) * executorAllocationRatio /
 *       tasksPerExecutor)}.</li>
 *   <li>If {@code maxNeeded < target}: the target drops at once to {@code max(maxNeeded,
 *       minExecutors)} and the add step goes back to 1.</li>
 *   <li>Otherwise, once tasks have been pending for {@code schedulerBacklogTimeout}, and then
 *       every {@code sustainedSchedulerBacklogTimeout} while they stay pending, the target rises
 *       from {@code max(target, activeExecutors)} as the {@link RampUp} says, clamped to
 *       {@code maxNeeded} and to [min, max]; the step doubles when it was used in full, otherwise
 *       it goes back to 1.</li>
 *   <li>The backlog timer starts at the first evaluation that sees pending tasks (the driver
 *       evaluates when the job starts and then every 100 ms, so within one tick of a stage's
 *       submission) and clears, with the step reset to 1, at the first evaluation that sees
 *       none. Reading the counts each time, rather than counting events, means no burst of
 *       task events can make the policy miss demand.</li>
 *   <li>Idle executors are removed by {@link IdleRemoval}, never below {@code max(minExecutors,
 *       target)}.</li>
 * </ul>
 * The target starts at {@code initialExecutors}. With dynamic allocation off the target is
 * {@code max(initialExecutors, 1)} throughout and nothing is removed.
 *
 * <p>Pure logic: no YARN types, no clock of its own (time in milliseconds is passed in), no
 * threads. Not thread-safe: the driver's event loop owns it. Logs one INFO line per change of the
 * target and nothing when nothing changes.
 */
public final class BatchAllocationPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(BatchAllocationPolicy.class);
  private static final long NOT_SET = Long.MIN_VALUE;
  private static final int MAX_STEP = 1 << 30;

  /**
   * What to do now.
   *
   * @param targetExecutors the total to ask the cluster for
   * @param executorsToRemove idle executors to mark pending-to-remove and then kill
   */
  public record Decision(int targetExecutors, List<String> executorsToRemove) {
    public Decision {
      executorsToRemove = List.copyOf(executorsToRemove);
    }
  }

  private final AllocationSettings settings;
  /** Why the target last changed, for the event log and the UI. */
  private String reason = "initial target";
  private final RampUp rampUp;
  private final IdleRemoval idleRemoval;
  private final BigDecimal tasksPerExecutor;

  private int target;
  private int step = 1;
  private long backlogSinceMillis = NOT_SET;
  private long nextRaiseAtMillis = NOT_SET;

  public BatchAllocationPolicy(AllocationSettings settings, RampUp rampUp) {
    this.settings = settings;
    this.rampUp = rampUp;
    this.idleRemoval = new IdleRemoval(settings.executorIdleTimeoutMillis(),
        settings.cachedExecutorIdleTimeoutMillis());
    this.tasksPerExecutor = BigDecimal.valueOf(settings.tasksPerExecutor());
    this.target = settings.enabled()
        ? settings.initialExecutors() : Math.max(settings.initialExecutors(), 1);
  }

  /** A policy with the ramp-up its settings name, reading headroom from {@code headroom}. */
  public static BatchAllocationPolicy create(AllocationSettings settings,
      ClusterHeadroom headroom) {
    return new BatchAllocationPolicy(settings, RampUp.of(settings.rampUp(), headroom));
  }

  public AllocationSettings settings() {
    return settings;
  }

  /** The current target (what the last decision asked for). */
  public int targetExecutors() {
    return target;
  }

  /** The add step the next ramp-up point will use (1, 2, 4, ...). */
  public int addStep() {
    return step;
  }

  /**
   * Updates the target from the current load and picks idle executors to remove.
   *
   * @param nowMillis the driver's clock
   * @param pendingTasks tasks of submitted stages not started yet
   * @param runningTasks tasks running now
   * @param activeExecutors executors running and not pending removal
   * @param idle executors with no running task and not pending removal
   */
  public Decision evaluate(long nowMillis, int pendingTasks, int runningTasks,
      int activeExecutors, List<IdleExecutor> idle) {
    if (!settings.enabled()) {
      return new Decision(target, List.of());
    }
    trackBacklog(nowMillis, pendingTasks);
    int maxNeeded = maxNeeded(pendingTasks, runningTasks);
    if (maxNeeded < target) {
      step = 1;
      changeTarget(Math.max(maxNeeded, settings.minExecutors()), nowMillis, pendingTasks,
          runningTasks, 1);
    } else if (nextRaiseAtMillis != NOT_SET && nowMillis >= nextRaiseAtMillis) {
      raise(maxNeeded, activeExecutors, nowMillis, pendingTasks, runningTasks);
      nextRaiseAtMillis = nowMillis + settings.sustainedSchedulerBacklogTimeoutMillis();
    }
    List<String> remove = idleRemoval.choose(nowMillis, activeExecutors,
        Math.max(settings.minExecutors(), target), idle);
    return new Decision(target, remove);
  }

  /** {@code ceil((pending + running) * ratio / tasksPerExecutor)}, in exact arithmetic. */
  int maxNeeded(int pendingTasks, int runningTasks) {
    BigDecimal tasks = BigDecimal.valueOf((long) pendingTasks + runningTasks);
    BigDecimal executors = tasks.multiply(settings.executorAllocationRatio())
        .divide(tasksPerExecutor, 0, RoundingMode.CEILING);
    return executors.min(BigDecimal.valueOf(Integer.MAX_VALUE)).intValue();
  }

  private void trackBacklog(long nowMillis, int pendingTasks) {
    if (pendingTasks == 0) {
      if (backlogSinceMillis != NOT_SET) {
        backlogSinceMillis = NOT_SET;
        nextRaiseAtMillis = NOT_SET;
        step = 1;
      }
    } else if (backlogSinceMillis == NOT_SET) {
      backlogSinceMillis = nowMillis;
      nextRaiseAtMillis = nowMillis + settings.schedulerBacklogTimeoutMillis();
    }
  }

  private void raise(int maxNeeded, int activeExecutors, long nowMillis, int pendingTasks,
      int runningTasks) {
    int base = Math.max(target, activeExecutors);
    long wanted = Math.max(base, rampUp.raise(base, step, activeExecutors));
    long clamped = Math.min(wanted, maxNeeded);
    clamped = Math.max(settings.minExecutors(), Math.min(settings.maxExecutors(), clamped));
    int newTarget = (int) clamped;
    int usedStep = step;
    step = newTarget - base >= step ? Math.min(step * 2, MAX_STEP) : 1;
    changeTarget(newTarget, nowMillis, pendingTasks, runningTasks, usedStep);
  }

  /** Why the target last changed (the backlog and tasks then). */
  public String reason() {
    return reason;
  }

  private void changeTarget(int newTarget, long nowMillis, int pendingTasks, int runningTasks,
      int usedStep) {
    if (newTarget == target) {
      return;
    }
    String backlog = backlogSinceMillis == NOT_SET ? "no backlog" : String.format(Locale.ROOT,
        "backlog %.1f s", (nowMillis - backlogSinceMillis) / 1000.0);
    reason = String.format(Locale.ROOT, "%s, %d pending, %d running tasks, step %d", backlog,
        pendingTasks, runningTasks, usedStep);
    LOG.info("target {} -> {} ({})", target, newTarget, reason);
    target = newTarget;
  }
}
