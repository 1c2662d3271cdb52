package dev.tide.driver.alloc;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch allocation policy (DESIGN.md "Allocation policy (batch)"): from the scheduler's
 * authoritative task counts it keeps a target executor count and picks idle executors to remove.
 * <ul>
 *   <li>{@code maxNeeded = ceil((pending + running) * executorAllocationRatio /
 *       tasksPerExecutor)}; with {@code lookahead}, {@code need = max(maxNeeded, executors for
 *       the stages expected runnable within one start latency)}, else {@code need =
 *       maxNeeded}.</li>
 *   <li>If {@code need < target}: the target drops at once to {@code max(need, minExecutors)}
 *       and the add step goes back to 1.</li>
 *   <li>Otherwise, once tasks have been pending for {@code schedulerBacklogTimeout} (at once
 *       with {@code immediateFirstRequest} when the backlog will clearly outlast a start), and
 *       then every {@code sustainedSchedulerBacklogTimeout} while they stay pending, the target
 *       rises from {@code max(target, activeExecutors)} as the {@link RampUp} says, clamped to
 *       {@code need} and to [min, max]; the step doubles when it was used in full, otherwise it
 *       goes back to 1. With {@code lookahead} the target also rises, without a backlog, to what
 *       the stages due within one start latency need; with {@code arrivalTrend}, to what the
 *       tasks will need when new work keeps arriving faster ({@link ArrivalTrend}); with
 *       {@code arrivalAtOnce}, to {@code maxNeeded} at the evaluation that sees new work (stages
 *       no forecast listed) arrive.</li>
 *   <li>The backlog timer starts at the first evaluation that sees pending tasks (the driver
 *       evaluates every 100 ms and at once when a stage is submitted) and clears, with the step
 *       reset to 1, at the first evaluation that sees none. Reading the counts each time,
 *       rather than counting events, means no burst of task events can make the policy miss
 *       demand.</li>
 *   <li>Idle executors are removed after the idle timeout ({@code executorIdleTimeout}, or with
 *       {@code adaptiveIdleTimeout} the one {@link ReuseAwareIdleTimeout} chooses), at once with
 *       {@code earlyRelease} when no task is pending and the plan has more stages, never below
 *       {@code max(minExecutors, target)}, nor, with {@code lookahead}, below what the stages due
 *       within two start latencies need (within four for a stage whose parents' end is estimated
 *       from most of their tasks, when its executors waiting that long fit in half the idle
 *       allowance; or those it asked new executors for a start latency
 *       ago or longer, when the forecast has since moved them out, but not beyond four: their
 *       starts are paid; the rent-or-buy cap lets them go once the application's recent idle
 *       time exceeds {@code idleAllowance} times its busy time, spread over four start
 *       latencies, after keeping all of them as long as earlier guessed stages' waits say pays:
 *       {@link GuessedStageWaits}), nor, with {@code arrivalHold},
 *       below what {@link ArrivalHold} keeps while new work (stages no forecast listed, such as
 *       new jobs) keeps arriving.</li>
 * </ul>
 * The start latency is measured: the driver reports each executor's time from allocation to
 * registration ({@link #executorStarted}). The target starts at {@code initialExecutors}. With
 * dynamic allocation off the target is {@code max(initialExecutors, 1)} throughout and nothing
 * is removed.
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
   * Added to the start latency for the lookahead's horizon: a request waits for the allocator's
   * round and the ResourceManager's grant before the measured latency begins.
   */
  static final long REQUEST_SLACK_MILLIS = 500;

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

  /**
   * The load at one evaluation.
   *
   * @param pendingTasks tasks of submitted stages not started yet
   * @param runningTasks tasks running now
   * @param activeExecutors executors running and not pending removal
   * @param idle executors with no running task and not pending removal
   * @param forecast what the plan's DAG and finished tasks say of the demand to come
   * @param tasksSubmitted tasks queued by stage submissions so far (a count that only grows;
   *     its rate is the arrival rate of work)
   */
  public record Load(int pendingTasks, int runningTasks, int activeExecutors,
      List<IdleExecutor> idle, DemandForecast.Forecast forecast, long tasksSubmitted) {
    public Load {
      idle = List.copyOf(idle);
    }

    /** The load {@code scheduler} shows now, with {@code forecast} of the demand to come. */
    public static Load of(SchedulerView scheduler, DemandForecast.Forecast forecast) {
      return new Load(scheduler.pendingTasks(), scheduler.runningTasks(),
          scheduler.activeExecutors(), scheduler.idleExecutors(), forecast,
          scheduler.tasksSubmitted());
    }
  }

  private final AllocationSettings settings;
  private final AllocationSettings.Rules rules;
  /** Why the target last changed, for the event log and the UI. */
  private String reason = "initial target";
  private final RampUp rampUp;
  private final ReuseAwareIdleTimeout adaptiveIdleTimeout;
  private final ArrivalHold arrivalHold;
  private final ArrivalTrend arrivalTrend = new ArrivalTrend();
  private final IdleAllowance idleAllowance;
  private final GuessedStageWaits guessedWaits = new GuessedStageWaits();
  /** Tasks of new work submitted as of the last evaluation. */
  private long newWorkSeen;
  private final StartLatency startLatency = new StartLatency();
  private final BigDecimal tasksPerExecutor;

  private int target;
  private int step = 1;
  private long backlogSinceMillis = NOT_SET;
  private long nextRaiseAtMillis = NOT_SET;
  private boolean raisedInBacklog;
  /** (time, tasks submitted) samples of the last {@link #arrivalWindowMillis}. */
  private final ArrayDeque<long[]> submissions = new ArrayDeque<>();
  /**
   * Upcoming stages whose lookahead kept executors idle too long: not foreseen again while the
   * forecast stays of the kind that failed. The value says it was a guess (their parents' end
   * not known, or a stage further ahead timed from the plan's median): an estimate from their
   * parents' own finished tasks, once there is one, is trusted again.
   */
  private final Map<Integer, Boolean> notForeseen = new HashMap<>();
  /**
   * Upcoming stages the lookahead asked new executors for, and when. A start latency later those
   * executors have come, their starts are paid, and they stay kept for the stage (until the
   * rent-or-buy cap lets them go) when the forecast moves it further out.
   */
  private final Map<Integer, Long> askedFor = new HashMap<>();
  /** Stage -> since when its forecast has been beyond the rent-or-buy cap's reach. */
  private final Map<Integer, Long> beyondReachSince = new HashMap<>();
  /** The last forecast's upcoming stages (id to tasks), and the tasks of those gone since. */
  private Map<Integer, Integer> upcomingTasks = new HashMap<>();
  private long foreseenTasks;

  public BatchAllocationPolicy(AllocationSettings settings, RampUp rampUp) {
    this.settings = settings;
    this.rules = settings.rules();
    this.rampUp = rampUp;
    this.adaptiveIdleTimeout = new ReuseAwareIdleTimeout(settings.executorIdleTimeoutMillis());
    this.arrivalHold = new ArrivalHold(settings.executorIdleTimeoutMillis(),
        settings.arrivalHoldWeight());
    this.idleAllowance = new IdleAllowance(settings.idleAllowance());
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

  /** An executor registered {@code startLatencyMillis} after its container was allocated. */
  public void executorStarted(long startLatencyMillis) {
    startLatency.measured(startLatencyMillis);
  }

  /** The start latency the policy plans with (measured, or assumed before any start). */
  public long startLatencyMillis() {
    return startLatency.millis();
  }

  /** The idle timeout that applies now (adaptive or configured), for executors beyond need. */
  public long idleTimeoutMillis() {
    return rules.adaptiveIdleTimeout()
        ? adaptiveIdleTimeout.timeoutMillis(startLatency.millis())
        : settings.executorIdleTimeoutMillis();
  }

  /**
   * As {@link #evaluate(long, Load)} with nothing known beyond the counts (no run times, no
   * stages ahead).
   */
  public Decision evaluate(long nowMillis, int pendingTasks, int runningTasks,
      int activeExecutors, List<IdleExecutor> idle) {
    return evaluate(nowMillis, new Load(pendingTasks, runningTasks, activeExecutors, idle,
        DemandForecast.Forecast.NONE, 0));
  }

  /** Updates the target from the current load and picks idle executors to remove. */
  public Decision evaluate(long nowMillis, Load load) {
    if (!settings.enabled()) {
      return new Decision(target, List.of());
    }
    int before = target;
    idleAllowance.observe(nowMillis,
        (double) load.runningTasks() / settings.tasksPerExecutor(), load.idle().size());
    long latency = startLatency.millis();
    double arrivals = arrivalsPerSecond(nowMillis, load.tasksSubmitted(), latency);
    RampUp.Backlog backlog = new RampUp.Backlog(load.pendingTasks(),
        settings.tasksPerExecutor(), load.forecast().taskMillisOrLowerBound(), latency,
        Math.max(0, target - load.activeExecutors()), arrivals, raisedInBacklog);
    trackBacklog(nowMillis, load.pendingTasks());
    long newWork = load.tasksSubmitted() - foreseenSubmitted(load.forecast());
    int maxNeeded = maxNeeded(load.pendingTasks(), load.runningTasks());
    if (rules.arrivalHold()) {
      arrivalHold.observe(nowMillis, newWork, this::executorsFor, maxNeeded);
    }
    int rising = rules.arrivalTrend()
        ? arrivalTrend.executorsAhead(nowMillis, newWork, latency, maxNeeded) : 0;
    if (rules.arrivalAtOnce() && newWork > newWorkSeen) {
      // None of its tasks has run: nothing says they end before a start, so no backlog timeout
      // and no waiting for that evidence. Nor that the stage behind comes later than a start
      // after them: when it is wider, ask for it too, or it starts a whole start late.
      rising = Math.max(rising, Math.max(maxNeeded, executorsFor(load.runningTasks()
          + load.forecast().tasksOf(BatchAllocationPolicy::behindUnstarted))));
    }
    newWorkSeen = newWork;
    long idleFor = -1; // how long the longest idle executor has been idle, -1 with none
    for (IdleExecutor e : load.idle()) {
      idleFor = Math.max(idleFor, nowMillis - e.idleSinceMillis());
    }
    guessedWaits.observe(nowMillis, load.forecast().upcoming(), BatchAllocationPolicy::isGuess,
        idleFor);
    DemandForecast.Forecast forecast = trusted(load.forecast());
    int dueSoon = rules.lookahead()
        ? executorsFor(forecast.tasksRunnableWithin(latency + REQUEST_SLACK_MILLIS)) : 0;
    int need = Math.max(maxNeeded, Math.max(dueSoon, rising));
    if (need < target) {
      step = 1;
      changeTarget(Math.max(need, settings.minExecutors()), nowMillis, load, "tasks need fewer");
    } else {
      if (dueSoon > target) {
        if (Math.min(settings.maxExecutors(), dueSoon)
            > Math.max(target, load.activeExecutors())) {
          for (DemandForecast.UpcomingStage s : forecast.upcoming()) {
            if (s.runnableWithin(latency + REQUEST_SLACK_MILLIS)) {
              askedFor.putIfAbsent(s.stageId(), nowMillis);
            }
          }
        }
        changeTarget(Math.min(settings.maxExecutors(), dueSoon), nowMillis, load,
            "lookahead: a stage is due within " + latency + " ms");
      }
      if (rising > target) {
        changeTarget(Math.min(settings.maxExecutors(), rising), nowMillis, load,
            "new work arrived" + (rising > maxNeeded ? ", faster and faster" : ""));
      }
      if (rules.immediateFirstRequest() && !raisedInBacklog && nextRaiseAtMillis != NOT_SET
          && backlog.outlastsStart(load.activeExecutors())) {
        nextRaiseAtMillis = nowMillis;
      }
      if (nextRaiseAtMillis != NOT_SET && nowMillis >= nextRaiseAtMillis) {
        raise(need, load, backlog, nowMillis);
        raisedInBacklog = true;
        nextRaiseAtMillis = nowMillis + settings.sustainedSchedulerBacklogTimeoutMillis();
      }
    }
    List<String> remove = removals(nowMillis, load, forecast, latency, Math.max(0, idleFor));
    if (rules.adaptiveIdleTimeout()) {
      adaptiveIdleTimeout.observe(nowMillis, load.idle(), remove, Math.max(0, target - before));
    }
    return new Decision(target, remove);
  }

  /**
   * Idle executors to let go: past the idle timeout (0 with early release), never below
   * {@code max(minExecutors, target)}, nor, with the arrival hold, below what it keeps for the
   * next arrival, nor, with lookahead, below what the stages due within two start latencies
   * need, unless those have kept them idle for that long already.
   */
  private List<String> removals(long nowMillis, Load load, DemandForecast.Forecast forecast,
      long latency, long waited) {
    long holdMillis = 2 * latency + REQUEST_SLACK_MILLIS;
    // Kept for a stage due within two starts, or whose parents' end is not known yet (too few
    // of their tasks finished to tell); the spread rent-or-buy cap below bounds what a wrong
    // guess costs.
    int dueWithinTwoStarts = rules.lookahead()
        ? executorsFor(keptForTasks(forecast, nowMillis, latency, holdMillis)) : 0;
    int floor = Math.max(settings.minExecutors(), target);
    if (rules.arrivalHold()) {
      floor = Math.max(floor, Math.min(settings.maxExecutors(),
          arrivalHold.executorsToKeep(nowMillis, latency)));
    }
    long idleTimeout = idleTimeoutMillis();
    if (rules.earlyRelease() && load.pendingTasks() == 0 && load.forecast().moreStages()) {
      idleTimeout = 0;
    }
    List<String> remove = IdleRemoval.choose(nowMillis, load.activeExecutors(),
        Math.max(floor, dueWithinTwoStarts), load.idle(), idleTimeout,
        settings.cachedExecutorIdleTimeoutMillis());
    // While the application's recent idle time is within its allowance of its busy time
    // (idleAllowance), the cap waits: the executors stay kept for the stage.
    if (remove.isEmpty() && dueWithinTwoStarts > floor && !idleAllowance.covers()) {
      // Rent or buy, spread: executors kept for a stage forecast to come cost their idle time;
      // releasing one the stage then needs costs a new start (two start latencies, as the
      // adaptive idle timeout counts it). One cap of two latencies for all of them loses every
      // start when the stage comes just after it; instead their caps are spread evenly over
      // four latencies (the same two on average): the share kept falls linearly with how long
      // they have waited. When none is left, the forecast was wrong and that stage is not
      // foreseen again (it gets executors as any backlog does when it becomes runnable).
      // Where guessed stages are among those kept, and earlier guesses' waits say how long such
      // a wait lasts, all are kept that long before the spread begins (GuessedStageWaits).
      long spread = 2 * (holdMillis - REQUEST_SLACK_MILLIS);
      boolean forGuesses = forecast.upcoming().stream().anyMatch(s -> isGuess(s)
          && (s.mayBeRunnableWithin(holdMillis) || askedFor.containsKey(s.stageId())));
      long keepAll = forGuesses ? guessedWaits.keepAllMillis(spread, 2 * latency) : 0;
      double keptShare = Math.max(0, Math.min(1,
          (double) (spread + REQUEST_SLACK_MILLIS + keepAll - waited) / spread));
      int kept = floor + (int) Math.ceil((dueWithinTwoStarts - floor) * keptShare);
      remove = IdleRemoval.choose(nowMillis, load.activeExecutors(), kept, load.idle(),
          idleTimeout, settings.cachedExecutorIdleTimeoutMillis());
      if (keptShare == 0 && !remove.isEmpty()) {
        for (DemandForecast.UpcomingStage s : forecast.upcoming()) {
          if (s.mayBeRunnableWithin(holdMillis) || askedFor.containsKey(s.stageId())) {
            notForeseen.put(s.stageId(), isGuess(s));
            askedFor.remove(s.stageId());
          }
        }
      }
    }
    return remove;
  }

  /**
   * Tasks of the upcoming stages to keep executors for: those that may be runnable within
   * {@code holdMillis}, and those the lookahead asked new executors for a start latency ago or
   * longer ({@link #askedFor}) while the forecast, moved out, keeps them within the cap's reach
   * (four start latencies).
   */
  private long keptForTasks(DemandForecast.Forecast forecast, long nowMillis, long latency,
      long holdMillis) {
    Set<Integer> kept = new HashSet<>();
    Set<Integer> upcoming = new HashSet<>();
    for (DemandForecast.UpcomingStage s : forecast.upcoming()) {
      upcoming.add(s.stageId());
      boolean maybeDue = s.mayBeRunnableWithin(holdMillis) || affordable(s, latency);
      Long since = askedFor.get(s.stageId());
      if (!maybeDue && since != null && nowMillis - since < latency) {
        askedFor.remove(s.stageId()); // the forecast changed before they came: a blip
        since = null;
      }
      if (since != null && s.runnableInMillis() != DemandForecast.UNKNOWN
          && s.runnableInMillis() > 4 * latency + REQUEST_SLACK_MILLIS) {
        // Beyond the rent-or-buy cap's reach: if the forecast is right they would wait out the
        // cap and the stage still start cold. Only once it has said so for a start latency: a
        // forecast that jumps out for a moment (a task outrunning the finished ones, then
        // ending) would otherwise release them a start before the stage needs them, and one
        // latency of waiting costs what one such release costs.
        long beyondSince = beyondReachSince.computeIfAbsent(s.stageId(), id -> nowMillis);
        if (nowMillis - beyondSince >= latency) {
          since = null;
        }
      } else {
        beyondReachSince.remove(s.stageId());
      }
      if (maybeDue || since != null) {
        kept.add(s.stageId());
      }
    }
    askedFor.keySet().retainAll(upcoming);
    beyondReachSince.keySet().retainAll(upcoming);
    return forecast.tasksOf(s -> kept.contains(s.stageId()));
  }

  /**
   * Whether the stage, beyond two start latencies, is worth waiting for all the same: its
   * parents' end is estimated from most of their tasks, within four start latencies (the cap's
   * reach), and its executors waiting all that time fit in half the idle allowance. A barrier's
   * last straggler, forecast to end 25 s out at 10 s starts, otherwise let the next stage's 167
   * executors go, and the stage started cold (holdout `etl`).
   */
  private boolean affordable(DemandForecast.UpcomingStage s, long latency) {
    return s.depth() == 1 && s.parentsFinishedShare() >= DemandForecast.SETTLED_SHARE
        && s.runnableWithin(4 * latency + REQUEST_SLACK_MILLIS)
        && idleAllowance.affords((double) executorsFor(s.tasks()) * s.runnableInMillis());
  }

  /**
   * Tasks submitted so far that the plan foresaw: those of the stages an earlier forecast listed
   * as upcoming and this one no longer does (submitted as the plan said, or their plan ended).
   * The rest are new work, such as a new job, that no rule saw coming.
   */
  private long foreseenSubmitted(DemandForecast.Forecast forecast) {
    Map<Integer, Integer> now = new HashMap<>();
    for (DemandForecast.UpcomingStage s : forecast.upcoming()) {
      now.put(s.stageId(), s.tasks());
    }
    for (Map.Entry<Integer, Integer> was : upcomingTasks.entrySet()) {
      if (!now.containsKey(was.getKey())) {
        foreseenTasks += was.getValue();
      }
    }
    upcomingTasks = now;
    return foreseenTasks;
  }

  /** {@code ceil((pending + running) * ratio / tasksPerExecutor)}, in exact arithmetic. */
  int maxNeeded(int pendingTasks, int runningTasks) {
    return executorsFor((long) pendingTasks + runningTasks);
  }

  private int executorsFor(long tasks) {
    BigDecimal executors = BigDecimal.valueOf(tasks).multiply(settings.executorAllocationRatio())
        .divide(tasksPerExecutor, 0, RoundingMode.CEILING);
    return executors.min(BigDecimal.valueOf(Integer.MAX_VALUE)).intValue();
  }

  /**
   * The forecast without the stages whose lookahead failed once; forgets those no longer
   * upcoming (they became runnable, or another plan runs).
   */
  private DemandForecast.Forecast trusted(DemandForecast.Forecast forecast) {
    if (notForeseen.isEmpty()) {
      return forecast;
    }
    List<DemandForecast.UpcomingStage> kept = new ArrayList<>();
    Set<Integer> stillUpcoming = new HashSet<>();
    for (DemandForecast.UpcomingStage s : forecast.upcoming()) {
      stillUpcoming.add(s.stageId());
      if (Boolean.TRUE.equals(notForeseen.get(s.stageId())) && !isGuess(s)) {
        notForeseen.remove(s.stageId()); // a failed guess: an estimate now, trusted again
      }
      if (!notForeseen.containsKey(s.stageId())) {
        kept.add(s);
      }
    }
    notForeseen.keySet().retainAll(stillUpcoming);
    return new DemandForecast.Forecast(forecast.taskMillis(), forecast.taskMillisAtLeast(), kept,
        forecast.moreStages());
  }

  /** Whether the stage comes right behind stages none of whose tasks has finished yet. */
  private static boolean behindUnstarted(DemandForecast.UpcomingStage s) {
    return s.depth() == 1 && s.runnableInMillis() == DemandForecast.UNKNOWN
        && s.parentsFinishedShare() == 0;
  }

  /** Whether the stage's forecast is a guess: its parents' end not known, or further ahead. */
  private static boolean isGuess(DemandForecast.UpcomingStage s) {
    return s.runnableInMillis() == DemandForecast.UNKNOWN || s.depth() > 1;
  }

  /**
   * Tasks submitted per second over the last {@code max(2 s, start latency)}: the rate at which
   * work arrives (a burst counts until it leaves the window).
   */
  private double arrivalsPerSecond(long nowMillis, long tasksSubmitted, long latency) {
    long window = Math.max(2_000, latency);
    submissions.addLast(new long[] {nowMillis, tasksSubmitted});
    while (submissions.size() > 1 && nowMillis - submissions.peekFirst()[0] > window) {
      submissions.pollFirst();
    }
    long[] oldest = submissions.peekFirst();
    long span = nowMillis - oldest[0];
    return span <= 0 ? 0 : (tasksSubmitted - oldest[1]) * 1000.0 / span;
  }

  private void trackBacklog(long nowMillis, int pendingTasks) {
    if (pendingTasks == 0) {
      if (backlogSinceMillis != NOT_SET) {
        backlogSinceMillis = NOT_SET;
        nextRaiseAtMillis = NOT_SET;
        raisedInBacklog = false;
        step = 1;
      }
    } else if (backlogSinceMillis == NOT_SET) {
      backlogSinceMillis = nowMillis;
      nextRaiseAtMillis = nowMillis + settings.schedulerBacklogTimeoutMillis();
    }
  }

  private void raise(int need, Load load, RampUp.Backlog backlog, long nowMillis) {
    int active = load.activeExecutors();
    int base = Math.max(target, active);
    long wanted = Math.max(base, rampUp.raise(base, step, active, backlog));
    long clamped = Math.min(wanted, need);
    clamped = Math.max(settings.minExecutors(), Math.min(settings.maxExecutors(), clamped));
    int newTarget = (int) clamped;
    int usedStep = step;
    step = newTarget - base >= step ? Math.min(step * 2, MAX_STEP) : 1;
    changeTarget(newTarget, nowMillis, load, "step " + usedStep);
  }

  /** Why the target last changed (the backlog and tasks then). */
  public String reason() {
    return reason;
  }

  private void changeTarget(int newTarget, long nowMillis, Load load, String why) {
    if (newTarget == target) {
      return;
    }
    String backlog = backlogSinceMillis == NOT_SET ? "no backlog" : String.format(Locale.ROOT,
        "backlog %.1f s", (nowMillis - backlogSinceMillis) / 1000.0);
    reason = String.format(Locale.ROOT, "%s, %d pending, %d running tasks, %s", backlog,
        load.pendingTasks(), load.runningTasks(), why);
    LOG.info("target {} -> {} ({})", target, newTarget, reason);
    target = newTarget;
  }
}
