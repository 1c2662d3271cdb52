package dev.tide.driver.alloc;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.LongStream;

/**
 * How long executors kept idle for a guessed upcoming stage (its parents' end not known yet, or
 * a stage further ahead timed from the plan's median) waited before it came, over the
 * application's last {@value #REMEMBERED} such stages; and from those, how long the lookahead's
 * rent-or-buy cap keeps them all before its spread begins ({@link #keepAllMillis}).
 *
 * <p>Without a history the cap is a hedge: it spreads its releases over four start latencies,
 * as fits a wait it knows nothing of. A plan that repeats (an iteration's one-task aggregate
 * between two wide stages, 2-6 s on the simulator's {@code iterative} trace) shows how long such
 * waits last, and the spread then releases executors the next stage needs a few seconds later:
 * they idle, go, and come back a start late (1.04-1.09x static's makespan at 2 s starts). A wait
 * counts from when the stage was listed as a guess with executors idle (from when the longest
 * idle one went idle, if later) to when it left the forecast (it became runnable).
 *
 * <p>Not thread-safe: the policy's owner calls it; times in milliseconds are passed in.
 */
final class GuessedStageWaits {
  /** Waits remembered: the latest ones. */
  static final int REMEMBERED = 8;
  /** Waits needed before they say anything. */
  static final int LEARNED_FROM = 3;
  private static final long NOT_WAITING = Long.MIN_VALUE;

  /** A guessed stage listed now: since when, and since when executors have waited for it. */
  private static final class Listing {
    final long listedAt;
    long waitingSince = NOT_WAITING;

    Listing(long listedAt) {
      this.listedAt = listedAt;
    }
  }

  private final Map<Integer, Listing> listed = new HashMap<>();
  private final ArrayDeque<Long> waits = new ArrayDeque<>();

  /**
   * One evaluation.
   *
   * @param upcoming the stages the forecast lists now
   * @param isGuess which of them are guesses
   * @param idleForMillis how long the longest idle executor has been idle, or -1 with none
   */
  void observe(long nowMillis, List<DemandForecast.UpcomingStage> upcoming,
      Predicate<DemandForecast.UpcomingStage> isGuess, long idleForMillis) {
    Set<Integer> ids = new HashSet<>();
    upcoming.forEach(s -> ids.add(s.stageId()));
    for (var e = listed.entrySet().iterator(); e.hasNext(); ) {
      Map.Entry<Integer, Listing> stage = e.next();
      if (!ids.contains(stage.getKey())) {
        e.remove();
        if (stage.getValue().waitingSince != NOT_WAITING) {
          remember(nowMillis - stage.getValue().waitingSince);
        }
      }
    }
    for (DemandForecast.UpcomingStage s : upcoming) {
      if (!isGuess.test(s)) {
        continue;
      }
      Listing listing = listed.computeIfAbsent(s.stageId(), id -> new Listing(nowMillis));
      if (listing.waitingSince == NOT_WAITING && idleForMillis >= 0) {
        listing.waitingSince = Math.max(listing.listedAt, nowMillis - idleForMillis);
      }
    }
  }

  private void remember(long waitMillis) {
    waits.addLast(waitMillis);
    if (waits.size() > REMEMBERED) {
      waits.removeFirst();
    }
  }

  /**
   * How long the cap keeps every executor it holds for guessed stages before its spread
   * begins: the {@code t} in {0, each remembered wait} for which "keep all for {@code t}, then
   * spread" would have cost least over the remembered waits (the shortest of equal cost); 0,
   * the spread alone, with fewer than {@value #LEARNED_FROM} remembered. Costs are executor
   * time per executor: a wait {@code w <= t} costs {@code w}; a longer one {@code t} plus what
   * the spread costs for the rest, {@code x = w - t}: an executor released after {@code c}
   * (uniform over the spread's {@code s}) costs {@code c + coldStart} when {@code c < x}
   * (it is needed again), else {@code x}: {@code x + coldStart x / s - x^2 / 2s} for {@code x
   * < s}, {@code s / 2 + coldStart} beyond.
   *
   * @param spreadMillis the span over which the cap spreads its releases
   * @param coldStartMillis what releasing an executor that is needed again costs
   */
  long keepAllMillis(long spreadMillis, long coldStartMillis) {
    if (waits.size() < LEARNED_FROM) {
      return 0;
    }
    long best = 0;
    double bestCost = Double.MAX_VALUE;
    for (long t : LongStream.concat(LongStream.of(0),
        waits.stream().mapToLong(Long::longValue)).toArray()) {
      double cost = 0;
      for (long w : waits) {
        cost += w <= t ? w : t + spreadCost(w - t, spreadMillis, coldStartMillis);
      }
      if (cost < bestCost || (cost == bestCost && t < best)) {
        bestCost = cost;
        best = t;
      }
    }
    return best;
  }

  /** Expected cost of the spread over a wait of {@code x}, per executor it holds. */
  static double spreadCost(double x, double spread, double coldStart) {
    if (x >= spread) {
      return spread / 2 + coldStart;
    }
    return x + coldStart * x / spread - x * x / (2 * spread);
  }
}
