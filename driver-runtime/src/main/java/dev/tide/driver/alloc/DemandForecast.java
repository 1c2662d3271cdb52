package dev.tide.driver.alloc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToLongFunction;
import java.util.function.Predicate;

/**
 * What the running plan's DAG says about demand to come, estimated from the run times of
 * finished tasks: how long a pending task will take, and which stages become runnable when.
 * The batch policy's backlog ramp and lookahead read it (DESIGN.md "Allocation policy (batch)").
 *
 * <p>Estimates, all from a stage's own finished tasks (another stage's tasks say little about
 * this one's):
 * <ul>
 *   <li>A pending task takes the mean run time of its stage's finished tasks. While none has
 *       finished, only a lower bound is known: as long as its stage's longest running task has
 *       run so far.</li>
 *   <li>A running task that has run {@code e} has {@code mean(d - e)} left over its stage's
 *       finished run times {@code d > e}, provided those are at least as many as its stage's
 *       running tasks that have run {@code e} or longer (itself included): otherwise the finished
 *       ones are the short part of what is known past {@code e} (the rest still runs), and the
 *       task counts as having outrun them. When some have outrun, the stage's tail is timed
 *       instead, as the longest of: its {@code r} running tasks times the mean
 *       interval between its finishes so far; {@code e x (mean / median - 1)} of its finished
 *       run times (a heavy tail, where the mean is well above the median, means a task that
 *       has run long will run about as long again; a light one means it ends soon); the
 *       time since its last finish (a stage quiet for {@code q} is likely to stay quiet about as
 *       long again); and when the last of its {@code r} running tasks ends at a constant rate
 *       fitted past the youngest one's age (those that reached it ended at {@code deaths / time
 *       at risk}, the running ones counted as still at risk; the last of {@code r} ends after
 *       {@code H(r) / rate}): stragglers, a few percent of a stage that run several times its
 *       median, are a population of their own that the stage's mean and median do not
 *       describe, and the earlier ones' ends say how long the rest run (when none ended past
 *       that age, stragglers' rate is fitted past the latest end: one end, and the time they
 *       have run since). With fewer than two finished tasks in its stage, its end is not
 *       known.</li>
 *   <li>A stage ends when its last running task does, or, with tasks pending, after
 *       {@code ceil(pending / (slots x executors))} rounds of its mean run time.</li>
 *   <li>A stage not submitted yet whose parents are all submitted becomes runnable when its last
 *       parent ends. Until half of a parent's tasks have finished, the estimate is extrapolated
 *       from its short part and is trusted only as far ahead as that parent's tasks have run.</li>
 *   <li>A stage further ahead, behind upcoming stages of one or two tasks (whose end cannot be
 *       timed before it comes: that takes two finished tasks), becomes runnable when the last of
 *       them ends: when it becomes runnable plus the median run time of the plan's finished
 *       tasks (none of its own has run; the plan's others are the only hint). Without it, an
 *       iteration's one-task aggregate between two wide stages hid the wide one behind it: its
 *       executors went in the first one's tail and it started cold. Behind a wider stage it is
 *       not listed: that stage's end is timed from its first finished tasks, and the lookahead
 *       asks a start ahead then. Not known when any stage before it is not known, or no task of
 *       the plan has finished.</li>
 * </ul>
 * Pure and stateless.
 */
public final class DemandForecast {
  /** A time or duration not known yet. */
  public static final long UNKNOWN = -1;
  /** Finished tasks of a stage from which its end is timed. */
  static final int TIMED_FROM = 2;
  /** Share of a parent's tasks finished from which its end is trusted however long they run. */
  static final double SETTLED_SHARE = 0.5;
  /** A running task is a straggler past this many times its stage's median finished run time. */
  static final double STRAGGLER_OVER_MEDIAN = 1.5;

  private DemandForecast() {}

  /**
   * A stage whose parents are all submitted and which is not runnable yet.
   *
   * @param runnableInMillis estimated time until it is runnable, or {@link #UNKNOWN}
   * @param parentsFinishedShare the least share, over its running parents, of their tasks that
   *     have finished (of those finished, running and pending); 1 with none running
   * @param parentsLongestRunMillis how long the longest running task of its parents has run
   * @param depth 1 when its parents are all submitted, else 1 + the largest depth of its
   *     upcoming parents: stages of different depths on one path run one after the other
   */
  public record UpcomingStage(int stageId, int tasks, long runnableInMillis,
      double parentsFinishedShare, long parentsLongestRunMillis, int depth) {
    /** A stage whose parents are all submitted ({@code depth} 1). */
    public UpcomingStage(int stageId, int tasks, long runnableInMillis,
        double parentsFinishedShare, long parentsLongestRunMillis) {
      this(stageId, tasks, runnableInMillis, parentsFinishedShare, parentsLongestRunMillis, 1);
    }

    /** A stage whose parents' estimate is settled (most of their tasks finished). */
    public UpcomingStage(int stageId, int tasks, long runnableInMillis) {
      this(stageId, tasks, runnableInMillis, 1, 0);
    }

    /**
     * Whether it is expected to be runnable within {@code millis} from now. An estimate from
     * fewer than half of a parent's tasks is extrapolated from the short part of that stage
     * (the finished are the first to finish); it is trusted only while the parents' tasks have
     * run no longer than {@code millis}, where its error is shorter than that too.
     */
    public boolean runnableWithin(long millis) {
      return runnableInMillis != UNKNOWN && runnableInMillis <= millis
          && (parentsFinishedShare >= SETTLED_SHARE || parentsLongestRunMillis <= millis);
    }

    /** Whether it may be runnable within {@code millis}: expected to, or not known when. */
    public boolean mayBeRunnableWithin(long millis) {
      return runnableInMillis == UNKNOWN || runnableInMillis <= millis;
    }
  }

  /**
   * The forecast at one moment.
   *
   * @param taskMillis expected run time of a pending task (weighted by the pending tasks of
   *     each stage with a finished task), or {@link #UNKNOWN}
   * @param taskMillisAtLeast for pending tasks of stages with no finished task: how long their
   *     longest running task has run (0 if none runs)
   * @param upcoming the stages next in line
   * @param moreStages whether the plan has stages not submitted yet (the driver knows what
   *     comes after the running stages)
   */
  public record Forecast(long taskMillis, long taskMillisAtLeast, List<UpcomingStage> upcoming,
      boolean moreStages) {
    /** Nothing known: no durations, no stages ahead (a client that does not forecast). */
    public static final Forecast NONE = new Forecast(UNKNOWN, 0, List.of(), false);

    public Forecast {
      upcoming = List.copyOf(upcoming);
    }

    /** The known run time of a pending task, else its lower bound, else 0. */
    public long taskMillisOrLowerBound() {
      return taskMillis != UNKNOWN ? taskMillis : taskMillisAtLeast;
    }

    /**
     * Tasks of the upcoming stages expected to be runnable within {@code millis} (with an
     * estimate trusted that far: {@link UpcomingStage#runnableWithin}).
     */
    public long tasksRunnableWithin(long millis) {
      return tasksOf(s -> s.runnableWithin(millis));
    }

    /** Tasks of the upcoming stages that may be runnable within {@code millis} (or unknown). */
    public long tasksMaybeRunnableWithin(long millis) {
      return tasksOf(s -> s.mayBeRunnableWithin(millis));
    }

    /**
     * The most tasks of {@code which} stages that run at once: the stages of one depth may run
     * side by side, those of different depths run one after the other.
     */
    public long tasksOf(Predicate<UpcomingStage> which) {
      Map<Integer, Long> byDepth = new HashMap<>();
      for (UpcomingStage s : upcoming) {
        if (which.test(s)) {
          byDepth.merge(s.depth(), (long) s.tasks(), Long::sum);
        }
      }
      return byDepth.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }
  }

  /**
   * Executors a stage's pending tasks can count on: those taking tasks now, and those asked for
   * that are starting or that the cluster can still grant ({@code min(target, active + starting
   * + grantable)}). A narrow stage whose executors are still starting then drains in a round or
   * two of its run time, not in rounds on the few executors there now (with those, a cold start
   * put the next stage's request minutes out, and that stage started cold too).
   *
   * @param startingExecutors containers allocated or launched whose executor has not
   *     registered yet
   * @param grantableExecutors what the cluster could still grant ({@link ClusterHeadroom})
   */
  public static int executorsExpected(int activeExecutors, int startingExecutors,
      int targetExecutors, int grantableExecutors) {
    long coming = Math.min((long) targetExecutors, (long) activeExecutors
        + Math.max(0, startingExecutors) + Math.max(0, grantableExecutors));
    return (int) Math.max(activeExecutors, coming);
  }

  /**
   * @param stages the running plan's stages that are not complete, and their parents
   * @param slotsPerExecutor task slots of one executor
   * @param activeExecutors executors that take tasks now or are on their way
   *     ({@link #executorsExpected})
   */
  public static Forecast of(List<StageOutlook> stages, int slotsPerExecutor,
      int activeExecutors) {
    Map<Integer, StageOutlook> byId = new HashMap<>();
    for (StageOutlook s : stages) {
      byId.put(s.id(), s);
    }
    Map<Integer, Long> endIn = new HashMap<>();
    double pendingWork = 0;
    long pendingKnown = 0;
    long atLeast = 0;
    List<UpcomingStage> upcoming = new ArrayList<>();
    boolean more = false;
    for (StageOutlook s : stages) {
      if (s.submitted() && !s.complete() && s.pendingTasks() > 0) {
        long[] finished = s.finishedMillis();
        if (finished.length > 0) {
          pendingWork += Arrays.stream(finished).average().orElseThrow() * s.pendingTasks();
          pendingKnown += s.pendingTasks();
        } else {
          atLeast = Math.max(atLeast, Arrays.stream(s.runningElapsedMillis()).max().orElse(0));
        }
      }
      if (s.submitted()) {
        continue;
      }
      more = true;
      long runnableIn = 0;
      double finishedShare = 1;
      long longestRun = 0;
      boolean parentsSubmitted = true;
      for (int parentId : s.parents()) {
        StageOutlook parent = byId.get(parentId);
        if (parent == null || parent.complete()) {
          continue; // done: its output exists
        }
        if (!parent.submitted()) {
          parentsSubmitted = false;
          break;
        }
        int finished = parent.finishedMillis().length;
        finishedShare = Math.min(finishedShare, (double) finished
            / Math.max(1, finished + parent.runningTasks() + parent.pendingTasks()));
        longestRun = Math.max(longestRun,
            Arrays.stream(parent.runningElapsedMillis()).max().orElse(0));
        long end = endIn.computeIfAbsent(parentId,
            id -> endInMillis(parent, slotsPerExecutor, activeExecutors));
        runnableIn = end == UNKNOWN || runnableIn == UNKNOWN ? UNKNOWN
            : Math.max(runnableIn, end);
      }
      if (parentsSubmitted) {
        upcoming.add(new UpcomingStage(s.id(), s.tasks(), runnableIn, finishedShare,
            longestRun));
      }
    }
    addFurtherAhead(stages, byId, upcoming, slotsPerExecutor, id -> endIn.computeIfAbsent(id,
        parentId -> endInMillis(byId.get(parentId), slotsPerExecutor, activeExecutors)),
        activeExecutors);
    long taskMillis = pendingKnown == 0 ? UNKNOWN : Math.round(pendingWork / pendingKnown);
    return new Forecast(taskMillis, atLeast, upcoming, more);
  }

  /**
   * Adds to {@code upcoming} the stages behind upcoming ones of at most {@value #TIMED_FROM}
   * tasks whose runnable time is known: the latest of their submitted parents' ends and their
   * upcoming parents' runnable times plus their rounds of the plan's median run time.
   */
  private static void addFurtherAhead(List<StageOutlook> stages, Map<Integer, StageOutlook> byId,
      List<UpcomingStage> upcoming, int slotsPerExecutor, IntToLongFunction endOf,
      int activeExecutors) {
    if (upcoming.stream().noneMatch(u -> u.tasks() <= TIMED_FROM)) {
      return; // nothing is listed behind a wider stage: no need for the plan's median
    }
    Map<Integer, UpcomingStage> listed = new HashMap<>();
    upcoming.forEach(u -> listed.put(u.stageId(), u));
    long median = planMedianMillis(stages);
    if (median == UNKNOWN) {
      return;
    }
    long slots = (long) slotsPerExecutor * Math.max(1, activeExecutors);
    boolean added = true;
    while (added) {
      added = false;
      for (StageOutlook s : stages) {
        if (s.submitted() || listed.containsKey(s.id())) {
          continue;
        }
        UpcomingStage next = behindUpcoming(s, byId, listed, median, slots, endOf);
        if (next != null) {
          listed.put(s.id(), next);
          upcoming.add(next);
          added = true;
        }
      }
    }
  }

  /**
   * {@code s} as an upcoming stage behind listed ones, or null when that is not known;
   * {@code endOf} times a submitted stage's end.
   */
  private static UpcomingStage behindUpcoming(StageOutlook s, Map<Integer, StageOutlook> byId,
      Map<Integer, UpcomingStage> listed, long median, long slots, IntToLongFunction endOf) {
    long runnableIn = 0;
    double share = 1;
    long longestRun = 0;
    int depth = 0;
    for (int parentId : s.parents()) {
      StageOutlook parent = byId.get(parentId);
      if (parent == null || parent.complete()) {
        continue;
      }
      UpcomingStage before = listed.get(parentId);
      long end;
      if (before != null) {
        if (before.runnableInMillis() == UNKNOWN || parent.tasks() > TIMED_FROM) {
          return null;
        }
        end = before.runnableInMillis() + (parent.tasks() + slots - 1) / slots * median;
        share = Math.min(share, before.parentsFinishedShare());
        longestRun = Math.max(longestRun, before.parentsLongestRunMillis());
        depth = Math.max(depth, before.depth());
      } else if (parent.submitted()) {
        end = endOf.applyAsLong(parentId);
        if (end == UNKNOWN) {
          return null;
        }
      } else {
        return null; // behind a stage not listed (yet)
      }
      runnableIn = Math.max(runnableIn, end);
    }
    return depth == 0 ? null
        : new UpcomingStage(s.id(), s.tasks(), runnableIn, share, longestRun, depth + 1);
  }

  /**
   * The median run time of the finished tasks of the plan's stages, or {@link #UNKNOWN}: the
   * smallest time that at least half of them exceed no more than, by bisection over the stages'
   * ascending run times (no sort of them all on every evaluation).
   */
  static long planMedianMillis(List<StageOutlook> stages) {
    List<long[]> runs = stages.stream().map(StageOutlook::finishedMillis)
        .filter(f -> f.length > 0).toList();
    long count = runs.stream().mapToLong(f -> f.length).sum();
    if (count == 0) {
      return UNKNOWN;
    }
    long rank = count / 2 + 1; // the median is the rank-th smallest (1-based)
    long lo = 0;
    long hi = runs.stream().mapToLong(f -> f[f.length - 1]).max().orElseThrow();
    while (lo < hi) {
      long mid = lo + (hi - lo) / 2;
      long atMost = 0;
      for (long[] f : runs) {
        atMost += firstAbove(f, mid);
      }
      if (atMost >= rank) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /** Time until the stage's last task ends, or {@link #UNKNOWN}. */
  static long endInMillis(StageOutlook s, int slotsPerExecutor, int activeExecutors) {
    long[] finished = s.finishedMillis();
    if (finished.length < TIMED_FROM) {
      return UNKNOWN;
    }
    long[] suffixSum = new long[finished.length + 1];
    for (int i = finished.length - 1; i >= 0; i--) {
      suffixSum[i] = suffixSum[i + 1] + finished[i];
    }
    long end = 0;
    boolean outrun = false;
    long[] running = s.runningElapsedMillis();
    long[] runningAscending = running.clone();
    Arrays.sort(runningAscending);
    for (long elapsed : running) {
      int longer = firstAbove(finished, elapsed);
      long count = finished.length - longer;
      // Censoring: the running tasks that have run as long are part of what is known past this
      // age too. When they outnumber the finished ones, the finished are the short part of it
      // (one task ending just past its siblings says little of them): the task has outrun what
      // can be told from finished tasks.
      long asLong = runningAscending.length - firstAbove(runningAscending, elapsed - 1);
      if (count > 0 && count >= asLong) {
        end = Math.max(end, suffixSum[longer] / count - elapsed);
      } else {
        outrun = true;
      }
    }
    if (outrun) {
      long meanInterval = (s.firstFinishAgoMillis() - s.lastFinishAgoMillis())
          / (finished.length - 1);
      double mean = (double) suffixSum[0] / finished.length;
      double median = finished[finished.length / 2];
      double tailWeight = Math.max(0, mean / Math.max(1, median) - 1);
      long longest = Arrays.stream(running).max().orElse(0);
      end = Math.max(end, Math.max(running.length * meanInterval, s.lastFinishAgoMillis()));
      end = Math.max(end, Math.round(longest * tailWeight));
      end = Math.max(end, lastOfOutrunMillis(finished, suffixSum, running));
    }
    if (s.pendingTasks() > 0) {
      long mean = suffixSum[0] / finished.length;
      long slots = (long) slotsPerExecutor * Math.max(1, activeExecutors);
      long rounds = (s.pendingTasks() + slots - 1) / slots;
      end = Math.max(end, rounds * mean);
    }
    return end;
  }

  /**
   * When the last of the running tasks is expected to end, from a constant hazard past the
   * youngest one's age {@code a}: the tasks that reached {@code a} (finished ones that ran
   * longer, and the running ones, still at risk) ended at the rate {@code deaths / time at risk
   * past a}, and the last of {@code r} such tasks ends after {@code H(r) / rate} on average
   * ({@code H(r) = 1 + 1/2 + ... + 1/r}). When none ended past {@code a} and the running ones
   * are stragglers (the youngest has run over {@value #STRAGGLER_OVER_MEDIAN} times the median
   * of the finished, as Spark's speculation counts them), the fit starts at the latest end, the
   * longest finished run: one death, and the running ones' time at risk since. Without it, one
   * straggler ending said nothing of those still running and the stage's other rules, timed by
   * its thousands of short tasks, gave them a few seconds, whatever they had run: the next
   * stage's executors came and waited a minute. 0 when there is nothing to fit.
   */
  static long lastOfOutrunMillis(long[] finishedAscending, long[] suffixSum, long[] running) {
    int n = finishedAscending.length;
    if (running.length == 0 || n == 0) {
      return 0;
    }
    long youngest = Arrays.stream(running).min().orElseThrow();
    int past = firstAbove(finishedAscending, youngest);
    long deaths = n - past;
    long origin = youngest;
    double atRisk = suffixSum[past] - (double) deaths * youngest;
    if (deaths == 0) {
      if (youngest <= STRAGGLER_OVER_MEDIAN * finishedAscending[n / 2]) {
        return 0;
      }
      origin = finishedAscending[n - 1];
      deaths = 1;
      atRisk = 0;
    }
    for (long elapsed : running) {
      atRisk += elapsed - origin;
    }
    double harmonic = 0;
    for (int i = 1; i <= running.length; i++) {
      harmonic += 1.0 / i;
    }
    return Math.round(harmonic * atRisk / deaths);
  }

  /** Index of the first element above {@code value} in an ascending array. */
  private static int firstAbove(long[] ascending, long value) {
    int lo = 0;
    int hi = ascending.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (ascending[mid] <= value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
