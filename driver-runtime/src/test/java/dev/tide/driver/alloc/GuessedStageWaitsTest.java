package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the waits for guessed stages say about how long the cap keeps all executors. */
class GuessedStageWaitsTest {
  private static final long SPREAD = 8_000;
  private static final long COLD_START = 4_000;

  /** A guessed stage listed at {@code from}, with executors idle from {@code idleFrom}. */
  private static void waitFor(GuessedStageWaits w, int stage, long from, long idleFrom,
      long cameAt) {
    List<DemandForecast.UpcomingStage> guessed = List.of(new DemandForecast.UpcomingStage(stage,
        10, DemandForecast.UNKNOWN, 0, 0));
    w.observe(from, guessed, s -> true, -1);
    w.observe(idleFrom, guessed, s -> true, 0);
    w.observe(cameAt, List.of(), s -> true, -1);
  }

  /** Waits that began as their stages were listed, one stage after the other. */
  private static GuessedStageWaits waits(GuessedStageWaits w, int first, long... waits) {
    for (int i = 0; i < waits.length; i++) {
      long from = (first + i) * 100_000L;
      waitFor(w, first + i, from, from, from + waits[i]);
    }
    return w;
  }

  @Test
  void withFewerThanThreeWaitsTheSpreadAloneDecides() {
    GuessedStageWaits w = waits(new GuessedStageWaits(), 0, 3_000, 3_000);
    assertEquals(0, w.keepAllMillis(SPREAD, COLD_START));
    waits(w, 2, 3_000);
    assertEquals(3_000, w.keepAllMillis(SPREAD, COLD_START));
  }

  @Test
  void aWaitCountsFromWhenExecutorsIdledNotFromTheListing() {
    GuessedStageWaits w = new GuessedStageWaits();
    for (int i = 0; i < 3; i++) {
      // listed 10 s before its executors idle; it comes 4 s after they did
      waitFor(w, i, i * 100_000L, i * 100_000L + 10_000, i * 100_000L + 14_000);
    }
    assertEquals(4_000, w.keepAllMillis(SPREAD, COLD_START));
  }

  @Test
  void waitsLongerThanTheSpreadKeepNothingBeyondIt() {
    GuessedStageWaits w = waits(new GuessedStageWaits(), 0, 20_000, 20_000, 20_000);
    // keeping all for 20 s costs 20 s each; the spread 4 s on average plus a new start
    assertEquals(0, w.keepAllMillis(SPREAD, COLD_START));
  }

  @Test
  void aRareLongWaitDoesNotUndoWhatTheShortOnesSay() {
    GuessedStageWaits w = waits(new GuessedStageWaits(), 0, 3_000, 3_000, 3_000, 60_000, 3_000);
    // keeping all for 3 s saves about 0.9 s on each short wait and costs 3 s on the long one
    assertEquals(3_000, w.keepAllMillis(SPREAD, COLD_START));
  }

  @Test
  void onlyTheLatestEightWaitsCount() {
    GuessedStageWaits w = waits(new GuessedStageWaits(), 0, 5_000, 5_000, 5_000);
    assertEquals(5_000, w.keepAllMillis(SPREAD, COLD_START));
    long[] long30s = new long[GuessedStageWaits.REMEMBERED];
    Arrays.fill(long30s, 30_000);
    waits(w, 3, long30s);
    assertEquals(0, w.keepAllMillis(SPREAD, COLD_START));
  }

  @Test
  void theSpreadCostsWhatItsReleasesNeededAgainAndItsKeptOnesCost() {
    // a 4 s wait: released after c < 4 s (half of them) cost c + 4 s, the rest 4 s
    assertEquals((2_000 + 4_000) * 0.5 + 4_000 * 0.5,
        GuessedStageWaits.spreadCost(4_000, SPREAD, COLD_START), 1e-6);
    assertEquals(SPREAD / 2.0 + COLD_START,
        GuessedStageWaits.spreadCost(9_000, SPREAD, COLD_START), 1e-6);
  }
}
