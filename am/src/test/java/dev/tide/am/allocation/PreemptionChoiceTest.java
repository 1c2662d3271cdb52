package dev.tide.am.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.am.allocation.PreemptionChoice.Candidate;
import dev.tide.am.allocation.PreemptionChoice.Decision;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PreemptionChoiceTest {
  private static Candidate idle(String id, long idleSince) {
    return new Candidate(id, "c" + id, 1024, 1, true, idleSince, false);
  }

  private static Candidate busy(String id, long lastTaskStart) {
    return new Candidate(id, "c" + id, 1024, 1, false, lastTaskStart, false);
  }

  private static List<String> ids(List<Candidate> candidates) {
    return candidates.stream().map(Candidate::executorId).toList();
  }

  @Test
  void idleExecutorsGoFirstTheLongestIdleFirst() {
    Decision d = PreemptionChoice.choose(List.of(busy("1", 100), idle("2", 500), idle("3", 200),
        busy("4", 900)), Set.of(), 2048, 0);
    assertEquals(List.of("3", "2"), ids(d.giveBack()));
    assertEquals(List.of(), d.drain());
  }

  /**
   * The RM kills the containers its negotiable contract names if its demand lasts, whatever else
   * was given back: an idle named one goes before a longer idle unnamed one, a busy named one
   * before a busy unnamed one, but never before an idle one.
   */
  @Test
  void amongIdleAndAmongBusyTheContainersYarnNamedGoFirst() {
    List<Candidate> four = List.of(idle("1", 100), idle("2", 900), busy("3", 900),
        busy("4", 100));
    assertEquals(List.of("2"), ids(PreemptionChoice.choose(four, Set.of(), Set.of("c2", "c4"),
        1024, 0).giveBack()));
    assertEquals(List.of("1", "2", "4"), ids(PreemptionChoice.choose(four, Set.of(),
        Set.of("c4"), 3 * 1024, 0).giveBack()));
  }

  @Test
  void thenBusyExecutorsWhoseTasksStartedLast() {
    Decision d = PreemptionChoice.choose(List.of(busy("1", 100), idle("2", 500),
        busy("3", 900), busy("4", 400)), Set.of(), 3 * 1024, 3);
    assertEquals(List.of("2", "3", "4"), ids(d.giveBack()));
  }

  @Test
  void vcoresAloneAreCoveredWhenNoMemoryIsAskedFor() {
    Decision d = PreemptionChoice.choose(List.of(idle("1", 1), idle("2", 2), idle("3", 3)),
        Set.of(), 0, 2);
    assertEquals(List.of("1", "2"), ids(d.giveBack()));
  }

  /**
   * The CapacityScheduler asks for 8 of its minimum allocations (128 MB, 1 vcore): 1024 MB
   * counted on memory. One executor of 1024 MB covers it; covering the 8 vcores too would give
   * back every executor (seen on MiniYARN before this rule: all 6 went).
   */
  @Test
  void anAskInMinimumAllocationsIsCoveredByEitherResource() {
    List<Candidate> six = List.of(new Candidate("1", "c1", 1024, 1, true, 1, false),
        new Candidate("2", "c2", 1024, 1, true, 2, false),
        new Candidate("3", "c3", 1024, 1, false, 3, false),
        new Candidate("4", "c4", 1024, 1, false, 4, false));
    assertEquals(List.of("1"), ids(PreemptionChoice.choose(six, Set.of(), 1024, 8).giveBack()));
    // Vcores dominate: 4 x (256 MB, 2 vcores) asked as 8 x (128 MB, 1 vcore) ...
    List<Candidate> small = List.of(new Candidate("1", "c1", 256, 2, true, 1, false),
        new Candidate("2", "c2", 256, 2, true, 2, false),
        new Candidate("3", "c3", 256, 2, true, 3, false),
        new Candidate("4", "c4", 256, 2, true, 4, false),
        new Candidate("5", "c5", 256, 2, true, 5, false));
    assertEquals(List.of("1", "2", "3", "4"),
        ids(PreemptionChoice.choose(small, Set.of(), 1024, 8).giveBack()));
  }

  @Test
  void strictContainersGoIdleAtOnceBusyDrainAndCountTowardsTheAmount() {
    Decision d = PreemptionChoice.choose(List.of(idle("1", 10), busy("2", 50), idle("3", 20),
        busy("4", 70)), Set.of("c2", "c3"), 3 * 1024, 0);
    // c3 (strict, idle) is given back, c2 (strict, busy) drains; together 2048 of 3072 MB: one
    // more, the idle executor 1.
    assertEquals(List.of("3", "1"), ids(d.giveBack()));
    assertEquals(List.of("2"), ids(d.drain()));
  }

  @Test
  void containersAlreadyGivenBackCountSoAnUnchangedAskIsNotAnsweredTwice() {
    Candidate gone = new Candidate("1", "c1", 1024, 1, true, 0, true);
    Decision d = PreemptionChoice.choose(List.of(gone, idle("2", 5)), Set.of(), 1024, 1);
    assertEquals(List.of(), d.giveBack());
  }

  @Test
  void nothingWantedNothingGiven() {
    Decision d = PreemptionChoice.choose(List.of(idle("1", 1)), Set.of(), 0, 0);
    assertEquals(true, d.isEmpty());
  }
}
