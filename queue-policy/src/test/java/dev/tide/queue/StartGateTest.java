package dev.tide.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Steps the gate through the phases with a manual clock; no YARN involved. */
class StartGateTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ManualClock clock = new ManualClock();

  private StartGate gate(int maxStarting) {
    return new StartGate(new QueuePolicySettings(TIMEOUT, maxStarting, "skip-me"), clock);
  }

  private static AppObservation accepted(String id) {
    return new AppObservation(id, false, false, true);
  }

  private static AppObservation starting(String id) {
    return new AppObservation(id, true, false, true);
  }

  private static AppObservation withExecutor(String id) {
    return new AppObservation(id, true, true, false);
  }

  private static List<String> admit(StartGate gate, AppObservation... fifoOrder) {
    List<String> ids = new ArrayList<>();
    for (AppObservation admitted : gate.admit(List.of(fifoOrder), Function.identity())) {
      ids.add(admitted.appId());
    }
    return ids;
  }

  @Test
  void zeroTimeoutStopsWaitingForExecutorsButStillOffersAmsOneAtATime() {
    StartGate gate = new StartGate(new QueuePolicySettings(Duration.ZERO, 1, "skip-me"), clock);
    gate.track("a1", false);
    gate.track("a2", false);
    gate.track("a3", false);

    // Unlike FIFO, which offers a2 and a3 too: if a1 is skipped on this node (user limit, no
    // matching request), the leaf queue does not move on to their AMs.
    assertEquals(List.of("a1"), admit(gate, accepted("a1"), accepted("a2"), accepted("a3")));
    gate.amAllocated("a1");
    // No wait for executors: with its AM, a1 is Running and the next AM is offered at once.
    assertEquals(List.of("a1", "a2"), admit(gate, starting("a1"), accepted("a2"), accepted("a3")));
    assertEquals(StartPhase.RUNNING, gate.phase("a1"));
  }

  @Test
  void burstStartsOneApplicationAtATime() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", false);
    gate.track("a3", false);

    assertEquals(List.of("a1"), admit(gate, accepted("a1"), accepted("a2"), accepted("a3")),
        "only the oldest Accepted application is offered its AM");
    gate.amAllocated("a1");
    assertEquals(StartPhase.STARTING, gate.phase("a1"));
    assertEquals(List.of("a1"), admit(gate, starting("a1"), accepted("a2"), accepted("a3")),
        "while a1 is Starting nobody else gets an AM");

    gate.executorAllocated("a1");
    assertEquals(StartPhase.RUNNING, gate.phase("a1"));
    assertEquals(List.of("a1", "a2"),
        admit(gate, withExecutor("a1"), accepted("a2"), accepted("a3")));

    gate.amAllocated("a2");
    assertEquals(List.of("a1", "a2"),
        admit(gate, withExecutor("a1"), starting("a2"), accepted("a3")));
    gate.executorAllocated("a2");
    assertEquals(List.of("a1", "a2", "a3"),
        admit(gate, withExecutor("a1"), withExecutor("a2"), accepted("a3")));
  }

  @Test
  void observationsAloneDriveThePhases() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", false);
    assertEquals(List.of("a1"), admit(gate, starting("a1"), accepted("a2")));
    assertEquals(StartPhase.STARTING, gate.phase("a1"));
    assertEquals(List.of("a1", "a2"), admit(gate, withExecutor("a1"), accepted("a2")));
    assertEquals(StartPhase.RUNNING, gate.phase("a1"));
  }

  @Test
  void startingTimesOutLazilyAndLetsTheNextOneIn() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", false);
    gate.amAllocated("a1");

    clock.advance(TIMEOUT.minusMillis(1));
    assertEquals(StartPhase.STARTING, gate.phase("a1"));
    assertEquals(List.of("a1"), admit(gate, starting("a1"), accepted("a2")));

    clock.advance(Duration.ofMillis(1));
    assertEquals(StartPhase.RUNNING, gate.phase("a1"), "read alone applies the timeout");
    assertEquals(List.of("a1", "a2"), admit(gate, starting("a1"), accepted("a2")));
  }

  @Test
  void timeoutCountsFromTheAmNotFromSubmission() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    clock.advance(TIMEOUT.multipliedBy(3)); // a long wait for the AM container
    gate.amAllocated("a1");
    assertEquals(StartPhase.STARTING, gate.phase("a1"));
    clock.advance(TIMEOUT);
    assertEquals(StartPhase.RUNNING, gate.phase("a1"));
  }

  @Test
  void optOutTagMakesAnApplicationRunningAtOnce() {
    StartGate gate = gate(1);
    gate.track("short", true);
    gate.track("a2", false);
    assertEquals(StartPhase.RUNNING, gate.phase("short"));
    assertEquals(List.of("short", "a2"), admit(gate, accepted("short"), accepted("a2")),
        "an opted-out application takes no starting slot, even before its AM");
  }

  @Test
  void oldestAcceptedWithoutDemandIsPassedOver() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", false);
    gate.track("a3", false);
    AppObservation noDemandYet = new AppObservation("a1", false, false, false);
    assertEquals(List.of("a2"), admit(gate, noDemandYet, accepted("a2"), accepted("a3")));
  }

  @Test
  void recoveredApplicationsWithExecutorsAreRunning() {
    // After an RM restart the applications come back with their containers but no events.
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", false);
    gate.track("a3", false);
    gate.track("a4", false);
    assertEquals(List.of("a1", "a2", "a3"),
        admit(gate, withExecutor("a1"), withExecutor("a2"), starting("a3"), accepted("a4")));
    assertEquals(StartPhase.RUNNING, gate.phase("a1"));
    assertEquals(StartPhase.RUNNING, gate.phase("a2"));
    assertEquals(StartPhase.STARTING, gate.phase("a3"));
    assertEquals(StartPhase.ACCEPTED, gate.phase("a4"));
  }

  @Test
  void moreStartingThanAllowedServesOnlyTheOldest() {
    StartGate gate = gate(1);
    for (String id : List.of("a1", "a2", "a3")) {
      gate.track(id, false);
    }
    assertEquals(List.of("a1"), admit(gate, starting("a1"), starting("a2"), accepted("a3")));
    assertEquals(2, gate.phaseCounts().get(StartPhase.STARTING));
  }

  @Test
  void maxStartingAllowsThatManyAtOnce() {
    StartGate gate = gate(2);
    for (String id : List.of("a1", "a2", "a3", "a4")) {
      gate.track(id, false);
    }
    assertEquals(List.of("a1", "a2"),
        admit(gate, accepted("a1"), accepted("a2"), accepted("a3"), accepted("a4")));
    assertEquals(List.of("a1", "a2"),
        admit(gate, starting("a1"), accepted("a2"), accepted("a3"), accepted("a4")));
    assertEquals(List.of("a1", "a2"),
        admit(gate, starting("a1"), starting("a2"), accepted("a3"), accepted("a4")));
    assertEquals(List.of("a1", "a2", "a3"),
        admit(gate, withExecutor("a1"), starting("a2"), accepted("a3"), accepted("a4")));
  }

  @Test
  void admittedKeepTheGivenOrder() {
    StartGate gate = gate(1);
    for (String id : List.of("old", "mid", "young")) {
      gate.track(id, false);
    }
    gate.amAllocated("young");
    gate.executorAllocated("young");
    assertEquals(List.of("old", "young"),
        admit(gate, accepted("old"), accepted("mid"), withExecutor("young")));
  }

  @Test
  void executorEventForAnAcceptedApplicationMakesItRunning() {
    // Unmanaged AMs and recovered applications hold executors without an AM allocation event.
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.executorAllocated("a1");
    assertEquals(StartPhase.RUNNING, gate.phase("a1"));
  }

  @Test
  void runningIsStickyAfterExecutorsAreReleased() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", false);
    admit(gate, withExecutor("a1"), accepted("a2"));
    assertEquals(List.of("a1", "a2"), admit(gate, starting("a1"), accepted("a2")),
        "a1 released its executors but stays Running");
  }

  @Test
  void finishedStartingApplicationFreesItsSlot() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", false);
    gate.amAllocated("a1");
    gate.forget("a1");
    assertNull(gate.phase("a1"));
    assertEquals(List.of("a2"), admit(gate, accepted("a2")));
  }

  @Test
  void eventsForUntrackedApplicationsAreIgnored() {
    StartGate gate = gate(1);
    gate.amAllocated("ghost");
    gate.executorAllocated("ghost");
    assertNull(gate.phase("ghost"));
    assertEquals(Map.of(StartPhase.ACCEPTED, 0, StartPhase.STARTING, 0, StartPhase.RUNNING, 0),
        gate.phaseCounts());
  }

  @Test
  void describeShowsCountsAndSettings() {
    StartGate gate = gate(1);
    gate.track("a1", false);
    gate.track("a2", true);
    gate.amAllocated("a1");
    String info = gate.describe();
    assertTrue(info.startsWith("Running 1, Starting 1, Accepted 0"), info);
    assertTrue(info.contains("starting-timeout=10000ms"), info);
  }

  @Test
  void concurrentCallersNeverAdmitTwoStartingApplications() throws Exception {
    StartGate gate = gate(1);
    int apps = 50;
    for (int i = 0; i < apps; i++) {
      gate.track("a" + i, false);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(pool.submit(() -> {
          for (int round = 0; round < 500; round++) {
            List<AppObservation> all = new ArrayList<>();
            for (int i = 0; i < apps; i++) {
              StartPhase phase = gate.phase("a" + i);
              all.add(phase == StartPhase.ACCEPTED ? accepted("a" + i)
                  : phase == StartPhase.STARTING ? starting("a" + i) : withExecutor("a" + i));
            }
            List<AppObservation> admitted = gate.admit(all, Function.identity());
            long notRunning = admitted.stream()
                .filter(o -> gate.phase(o.appId()) != StartPhase.RUNNING).count();
            assertTrue(notRunning <= 1, "admitted " + notRunning + " not-Running applications");
            for (AppObservation o : admitted) {
              if (gate.phase(o.appId()) == StartPhase.ACCEPTED) {
                gate.amAllocated(o.appId());
              } else {
                gate.executorAllocated(o.appId());
              }
            }
          }
        }));
      }
      for (Future<?> future : futures) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(apps, gate.phaseCounts().get(StartPhase.RUNNING));
  }
}
