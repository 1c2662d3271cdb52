package dev.tide.driver.alloc;

import java.util.Arrays;
import java.util.function.LongToIntFunction;

/**
 * How many executors to keep while new work keeps arriving
 * ({@code tide.dynamicAllocation.arrivalHold}): a rent-or-buy choice for each count of
 * executors, learnt from the arrivals of work the policy has seen.
 *
 * <p>An arrival is an evaluation that sees more tasks of new work submitted than the one before
 * (new jobs, not the stages a forecast listed: the lookahead provides for those); its width is
 * the executors those tasks need. The {@code k}-th executor's gap {@code g} before an arrival is
 * how long it waited for it: the time since the previous arrival or, when all the work after
 * that arrival had ended, since that end; or, when the work in flight had fallen below {@code
 * k} executors within two start latencies of the arrival (its tasks ended, or a narrower stage
 * followed), since then. A job that outlasts its successor's usual gap is no reason to let its
 * executors go the moment it ends: an interactive session's next query comes a think time after
 * the last one's result, not a fixed time after its submission; and a job whose last stage is
 * narrower than its first leaves most of its executors idle (or released early) a moment
 * before its result, the next job often arriving as it ends. A longer idle stretch while work
 * still runs counts from the previous arrival, as it did before executors were told apart by
 * when they went idle: counted from the fall, the arrivals of overlapping batch jobs kept their
 * executors through most gaps. Each arrival after the first is a sample: it needed {@code w}
 * executors, and the {@code k}-th had waited {@code g_k}. Keeping the {@code k}-th executor for
 * up to {@code t} costs {@code min(g_k, t)} of container time; when it was released ({@code
 * g_k > t}) and the arrival needs it ({@code w >= k}), the arrival pays {@code t} plus a cold
 * start, counted as {@code coldStartWeight} x the measured start latency (the container's
 * start-up and the arrival's work waiting for it). The {@code k}-th executor is kept for the
 * {@code t} in {0, each gap, ceiling} that would have cost least over the last {@value #SAMPLES}
 * samples, its wait counted in the same way. So a burst of jobs a few seconds apart keeps what
 * most of its jobs use; executors only a rare wide job needs, or any once the arrivals stop for
 * longer than their usual gaps, go.
 *
 * <p>Not thread-safe: the driver's event loop owns it; times in milliseconds are passed in.
 */
final class ArrivalHold {
  static final int SAMPLES = 64;
  private static final long NOT_SET = Long.MIN_VALUE;

  private final long ceilingMillis;
  private final int coldStartWeight;
  private final Sample[] samples = new Sample[SAMPLES];
  private int count;
  private int next;
  private long lastSubmitted;
  private long lastArrivalMillis = NOT_SET;
  /** Executors the work in flight needed at the last evaluation. */
  private int demand;
  /** Since when each count of executors above {@link #demand} has not been needed. */
  private IdleLevels idleLevels = IdleLevels.NONE;
  /** Executor counts (the distinct widths, ascending) and how long after an arrival each stays. */
  private int[] levels = new int[0];
  private long[] keepMillis = new long[0];
  private long cachedColdStart = -1;
  private boolean changed;

  /**
   * @param ceilingMillis the longest a level is kept after an arrival ({@code
   *     executorIdleTimeout})
   * @param coldStartWeight a cold start's cost in start latencies
   */
  ArrivalHold(long ceilingMillis, int coldStartWeight) {
    this.ceilingMillis = ceilingMillis;
    this.coldStartWeight = coldStartWeight;
  }

  /**
   * One evaluation's submissions.
   *
   * @param newTasksSubmitted tasks of new work submitted so far (only grows)
   * @param executorsForTasks the executors {@code n} tasks need
   * @param executorsInFlight the executors the tasks pending or running now need
   */
  void observe(long nowMillis, long newTasksSubmitted, LongToIntFunction executorsForTasks,
      int executorsInFlight) {
    long arrived = newTasksSubmitted - lastSubmitted;
    lastSubmitted = Math.max(lastSubmitted, newTasksSubmitted);
    if (arrived > 0) {
      if (lastArrivalMillis != NOT_SET) {
        samples[next] = new Sample(nowMillis, lastArrivalMillis, demand, idleLevels,
            executorsForTasks.applyAsInt(arrived));
        next = (next + 1) % SAMPLES;
        count = Math.min(count + 1, SAMPLES);
        changed = true;
      }
      lastArrivalMillis = nowMillis;
    }
    idleLevels = idleLevels.after(demand, executorsInFlight, nowMillis);
    demand = executorsInFlight;
  }

  /**
   * Executors to keep now: the largest count whose keep time has not run out since the last
   * arrival, or since the work after it fell below that count (0 before two arrivals).
   */
  int executorsToKeep(long nowMillis, long startLatencyMillis) {
    if (count == 0) {
      return 0;
    }
    long coldStart = coldStartWeight * startLatencyMillis;
    if (changed || coldStart != cachedColdStart) {
      recompute(coldStart, startLatencyMillis);
    }
    int keep = 0;
    for (int i = 0; i < levels.length; i++) {
      long waited = waited(nowMillis, lastArrivalMillis, demand, idleLevels, levels[i],
          startLatencyMillis);
      if (keepMillis[i] >= waited && keepMillis[i] > 0) {
        keep = levels[i];
      }
    }
    return keep;
  }

  /**
   * How long the {@code level}-th executor has waited at {@code nowMillis}, the work in flight
   * needing {@code demand} executors: with none, since the work ended or the last arrival,
   * whichever is later; else since the work fell below the level, when that was after the last
   * arrival and within two start latencies; else since the last arrival.
   */
  private static long waited(long nowMillis, long lastArrivalMillis, int demand,
      IdleLevels idle, int level, long startLatencyMillis) {
    if (demand == 0) {
      return nowMillis - Math.max(lastArrivalMillis, idle.since(1));
    }
    long fell = level <= demand ? NOT_SET : idle.since(level);
    long fromFall = nowMillis - Math.max(lastArrivalMillis, fell);
    return fromFall <= 2 * startLatencyMillis ? fromFall : nowMillis - lastArrivalMillis;
  }

  private void recompute(long coldStart, long startLatencyMillis) {
    cachedColdStart = coldStart;
    changed = false;
    levels = Arrays.stream(samples, 0, count).mapToInt(Sample::width).distinct().sorted()
        .toArray();
    keepMillis = new long[levels.length];
    long[] gaps = new long[count];
    long[] candidates = new long[count + 2];
    for (int l = 0; l < levels.length; l++) {
      candidates[0] = 0;
      candidates[1] = ceilingMillis;
      for (int i = 0; i < count; i++) {
        gaps[i] = samples[i].gap(levels[l], startLatencyMillis);
        candidates[i + 2] = Math.min(gaps[i], ceilingMillis);
      }
      keepMillis[l] = cheapest(levels[l], gaps, candidates, coldStart);
    }
  }

  /** The keep time in {@code candidates} that would have cost least for the level-th executor. */
  private long cheapest(int level, long[] gaps, long[] candidates, long coldStart) {
    long best = 0;
    double bestCost = Double.MAX_VALUE;
    for (long t : candidates) {
      double cost = 0;
      for (int i = 0; i < count; i++) {
        long g = gaps[i];
        if (g <= t) {
          cost += g;
        } else {
          cost += samples[i].width() >= level ? t + coldStart : t;
        }
      }
      if (cost < bestCost || (cost == bestCost && t < best)) {
        bestCost = cost;
        best = t;
      }
    }
    return best;
  }

  /**
   * An arrival: when it came, the arrival before it, the executors the work in flight needed
   * just before it and since when the counts above those had not been needed, and its width.
   */
  private record Sample(long atMillis, long previousArrivalMillis, int demandBefore,
      IdleLevels idle, int width) {
    /** How long the {@code level}-th executor waited for this arrival. */
    long gap(int level, long startLatencyMillis) {
      return waited(atMillis, previousArrivalMillis, demandBefore, idle, level,
          startLatencyMillis);
    }
  }

  /**
   * Since when each executor count above the work's current need has not been needed: ranges
   * of counts {@code (tops[i-1], tops[i]]} (the first from the current need) that fell idle at
   * {@code sinces[i]}, the higher ranges earlier. Immutable, so an arrival's sample keeps the
   * state it saw; counts above the last range were never needed ({@link #NOT_SET}).
   */
  private record IdleLevels(int[] tops, long[] sinces) {
    static final IdleLevels NONE = new IdleLevels(new int[0], new long[0]);

    long since(int level) {
      for (int i = 0; i < tops.length; i++) {
        if (level <= tops[i]) {
          return sinces[i];
        }
      }
      return NOT_SET;
    }

    /** After the need went from {@code before} to {@code now} executors at {@code nowMillis}. */
    IdleLevels after(int before, int now, long nowMillis) {
      if (now < before) {
        int n = tops.length;
        int[] t = new int[n + 1];
        long[] s = new long[n + 1];
        t[0] = before;
        s[0] = nowMillis;
        System.arraycopy(tops, 0, t, 1, n);
        System.arraycopy(sinces, 0, s, 1, n);
        return new IdleLevels(t, s);
      }
      if (now > before) {
        int drop = 0;
        while (drop < tops.length && tops[drop] <= now) {
          drop++;
        }
        return drop == 0 ? this : new IdleLevels(Arrays.copyOfRange(tops, drop, tops.length),
            Arrays.copyOfRange(sinces, drop, sinces.length));
      }
      return this;
    }
  }
}
