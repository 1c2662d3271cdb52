package dev.tide.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.AbstractLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The policy on a real CapacityScheduler: a burst of 6 applications into a queue of 2 GiB, which
 * holds about 3 AMs (256 MiB) with their 2 executors (256 MiB each), under FIFO, FIFO with a tuned
 * {@code maximum-am-resource-percent}, and the drip-feed policy, one after the other on the same
 * cluster; then the starting timeout and the opt-out tag.
 *
 * <p>Queues (25% each of one 8 GiB NodeManager, maximum-capacity 25%, so each is exactly 2 GiB):
 * {@code fifo} (AM limit 100%), {@code tuned} (FIFO, AM limit 25% = 2 AMs), {@code drip} (policy,
 * 60 s timeout) and {@code quick} (policy, 2 s timeout).
 */
class DripFeedMiniYarnTest {

  private static final int BURST = 6;
  private static final int EXECUTORS = 2;
  private static final int EXECUTOR_MB = 256;
  private static final long HOLD_MILLIS = 2_000;
  private static final long GIVE_UP_MILLIS = 30_000;
  private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(90);
  private static final long QUICK_TIMEOUT_MILLIS = 2_000;
  private static final String PREFIX = "yarn.scheduler.capacity.root.";

  private static MiniYarnBurst yarn;

  @BeforeAll
  static void startCluster() throws Exception {
    Configuration queues = new Configuration(false);
    queues.set(PREFIX + "queues", "fifo,tuned,drip,quick");
    for (String queue : List.of("fifo", "tuned", "drip", "quick")) {
      queues.set(PREFIX + queue + ".capacity", "25");
      queues.set(PREFIX + queue + ".maximum-capacity", "25");
      queues.set(PREFIX + queue + ".maximum-am-resource-percent", "1.0");
    }
    queues.set(PREFIX + "tuned.maximum-am-resource-percent", "0.25");
    String policy = DripFeedOrderingPolicy.class.getName();
    queues.set(PREFIX + "drip.ordering-policy", policy);
    queues.set(PREFIX + "drip.ordering-policy.starting-timeout", "60s");
    queues.set(PREFIX + "quick.ordering-policy", policy);
    queues.set(PREFIX + "quick.ordering-policy.starting-timeout", QUICK_TIMEOUT_MILLIS + "ms");
    yarn = new MiniYarnBurst("drip-feed", 8192, queues);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (yarn != null) {
      yarn.close();
    }
  }

  @Test
  void policyIsLoadedFromTheQueueConfiguration() {
    CapacityScheduler scheduler =
        (CapacityScheduler) yarn.resourceManager().getResourceScheduler();
    DripFeedOrderingPolicy policy = assertInstanceOf(DripFeedOrderingPolicy.class,
        ((AbstractLeafQueue) scheduler.getQueue("quick")).getOrderingPolicy());
    assertEquals(Duration.ofMillis(QUICK_TIMEOUT_MILLIS), policy.gate().settings().startingTimeout());
    assertTrue(policy.getInfo().contains("starting-timeout=2000ms"), policy.getInfo());
  }

  @Test
  void burstFifoFillsTheQueueWithIdleAmsDripFeedDoesNot() throws Exception {
    BurstStats fifo = BurstStats.of("FIFO (AM limit 100%)", burst("fifo"));
    BurstStats tuned = BurstStats.of("FIFO, maximum-am-resource-percent .25", burst("tuned"));
    List<AppTimeline> dripApps = burst("drip");
    BurstStats drip = BurstStats.of("drip-feed (max-starting 1)", dripApps);

    String table = "Burst of " + BURST + " apps x (AM " + MiniYarnBurst.AM_MB + " MiB + "
        + EXECUTORS + " executors x " + EXECUTOR_MB + " MiB, held " + HOLD_MILLIS
        + " ms) into a 2048 MiB queue; maxAM0 = most applications holding an AM and no executor"
        + " at once\n" + BurstStats.header() + "\n" + fifo.row() + "\n" + tuned.row() + "\n"
        + drip.row() + "\n";
    report(table);

    assertEquals(BURST, drip.succeeded(), "every application finishes under the policy");
    assertTrue(drip.maxAmsWithoutExecutor() <= 1,
        "the policy let " + drip.maxAmsWithoutExecutor() + " AMs wait without executors\n" + table);
    assertTrue(fifo.maxAmsWithoutExecutor() > 1,
        "FIFO should fill the queue with idle AMs in this setup\n" + table);
    for (int i = 1; i < dripApps.size(); i++) {
      AppTimeline previous = dripApps.get(i - 1);
      AppTimeline next = dripApps.get(i);
      assertTrue(previous.firstExecutor() >= 0
          && previous.firstExecutor() <= next.amAllocated(),
          "under the policy " + previous + " must have an executor before the AM of " + next);
    }
  }

  @Test
  void applicationWithoutExecutorsLetsTheNextStartAfterTheTimeout() throws Exception {
    ApplicationId lonely = yarn.submit("quick", "no-executors", Set.of(), 0, EXECUTOR_MB,
        6_000, GIVE_UP_MILLIS);
    ApplicationId next = yarn.submit("quick", "next", Set.of(), 1, EXECUTOR_MB,
        500, GIVE_UP_MILLIS);
    List<AppTimeline> apps = yarn.awaitFinished(List.of(lonely, next), FINISH_TIMEOUT);
    AppTimeline a = apps.get(0);
    AppTimeline b = apps.get(1);
    report("timeout test: " + a + "\n              " + b + "\n");

    assertEquals(FinalApplicationStatus.SUCCEEDED, a.finalStatus(), a.toString());
    assertEquals(FinalApplicationStatus.SUCCEEDED, b.finalStatus(), b.toString());
    long waited = b.amAllocated() - a.amAllocated();
    assertTrue(waited >= QUICK_TIMEOUT_MILLIS - 100,
        "the next AM came " + waited + " ms after the first, before the starting timeout");
    assertTrue(b.amAllocated() < a.finished() - 1_000,
        "the next AM must start on the timeout, not when the first application finishes: "
            + a + " / " + b);
  }

  @Test
  void optOutTagLetsTheNextStartAtOnceWithoutItTheNextWaits() throws Exception {
    ApplicationId tagged = yarn.submit("drip", "tagged", Set.of("tide-queue-policy-skip"), 0,
        EXECUTOR_MB, 5_000, GIVE_UP_MILLIS);
    ApplicationId afterTagged = yarn.submit("drip", "after-tagged", Set.of(), 1, EXECUTOR_MB,
        500, GIVE_UP_MILLIS);
    List<AppTimeline> withTag = yarn.awaitFinished(List.of(tagged, afterTagged), FINISH_TIMEOUT);

    // Control: the same pair without the tag; the second waits for the first to finish
    // (the drip queue's timeout is 60 s, longer than the first application lives).
    ApplicationId untagged = yarn.submit("drip", "untagged", Set.of(), 0, EXECUTOR_MB,
        3_000, GIVE_UP_MILLIS);
    ApplicationId afterUntagged = yarn.submit("drip", "after-untagged", Set.of(), 1, EXECUTOR_MB,
        500, GIVE_UP_MILLIS);
    List<AppTimeline> without = yarn.awaitFinished(List.of(untagged, afterUntagged),
        FINISH_TIMEOUT);
    report("opt-out test: " + withTag.get(0) + "\n              " + withTag.get(1)
        + "\n     control: " + without.get(0) + "\n              " + without.get(1) + "\n");

    for (AppTimeline app : List.of(withTag.get(0), withTag.get(1), without.get(0),
        without.get(1))) {
      assertEquals(FinalApplicationStatus.SUCCEEDED, app.finalStatus(), app.toString());
    }
    assertTrue(withTag.get(1).amAllocated() < withTag.get(0).finished() - 1_000,
        "with the tag the next AM starts while the first runs: " + withTag);
    assertTrue(without.get(1).amAllocated() >= without.get(0).amReportedFinish(),
        "without the tag the next AM waits for the first application: " + without);
  }

  /** Submits the burst into one queue and waits for all of it. */
  private static List<AppTimeline> burst(String queue) throws Exception {
    List<ApplicationId> apps = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      apps.add(yarn.submit(queue, queue + "-" + i, Set.of(), EXECUTORS, EXECUTOR_MB,
          HOLD_MILLIS, GIVE_UP_MILLIS));
    }
    List<AppTimeline> timelines = yarn.awaitFinished(apps, FINISH_TIMEOUT);
    for (AppTimeline timeline : timelines) {
      System.out.println(timeline);
    }
    return timelines;
  }

  /** Prints to the test output and appends to target/queue-policy-measurements.txt. */
  private static void report(String text) throws Exception {
    System.out.println(text);
    Path file = Path.of("target", "queue-policy-measurements.txt");
    Files.writeString(file, text + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
