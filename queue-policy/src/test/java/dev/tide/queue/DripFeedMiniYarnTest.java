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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * {@code maximum-am-resource-percent}, and the drip-feed policy, side by side on the same cluster
 * in three queues of the same size (each queue's maximum capacity is its capacity); then the
 * starting timeout and the opt-out tag.
 *
 * <p>Queues (maximum-capacity = capacity, so their sizes are exact): {@code fifo} (AM limit
 * 100%), {@code tuned} (FIFO, AM limit 25% = 2 AMs) and {@code drip} (policy, 60 s timeout) of
 * 2 GiB; the same three as {@code small-*} of 1 GiB, where FIFO's 4 AMs leave no room for any
 * executor and the drivers wait until they give up; {@code quick} (policy, 2 s timeout).
 */
class DripFeedMiniYarnTest {

  private static final int BURST = 6;
  private static final int EXECUTORS = 2;
  private static final int EXECUTOR_MB = 256;
  private static final long HOLD_MILLIS = 2_000;
  private static final long GIVE_UP_MILLIS = 60_000;
  private static final long SMALL_GIVE_UP_MILLIS = 15_000;
  private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(90);
  private static final long QUICK_TIMEOUT_MILLIS = 2_000;
  private static final String PREFIX = "yarn.scheduler.capacity.root.";
  private static final int NODE_MB = 10_240;
  /** Queue -> capacity (= maximum-capacity) in percent of the one 10 GiB NodeManager. */
  private static final Map<String, String> CAPACITY_PERCENT = orderedMap(
      "fifo", "20", "tuned", "20", "drip", "20", // 2 GiB: about 3 AMs with their executors
      "small-fifo", "10", "small-tuned", "10", "small-drip", "10", // 1 GiB: 4 AMs, or 1 app
      "quick", "10");

  /** The measurements of one run of this class; cleared when the class starts. */
  private static final Path MEASUREMENTS = Path.of("target", "queue-policy-measurements.txt");

  private static MiniYarnBurst yarn;

  @BeforeAll
  static void startCluster() throws Exception {
    Files.deleteIfExists(MEASUREMENTS);
    Configuration queues = new Configuration(false);
    queues.set(PREFIX + "queues", String.join(",", CAPACITY_PERCENT.keySet()));
    CAPACITY_PERCENT.forEach((queue, percent) -> {
      queues.set(PREFIX + queue + ".capacity", percent);
      queues.set(PREFIX + queue + ".maximum-capacity", percent);
      queues.set(PREFIX + queue + ".maximum-am-resource-percent", "1.0");
    });
    queues.set(PREFIX + "tuned.maximum-am-resource-percent", "0.25");
    queues.set(PREFIX + "small-tuned.maximum-am-resource-percent", "0.25");
    String policy = DripFeedOrderingPolicy.class.getName();
    for (String queue : List.of("drip", "small-drip")) {
      queues.set(PREFIX + queue + ".ordering-policy", policy);
      queues.set(PREFIX + queue + ".ordering-policy.starting-timeout", "60s");
    }
    queues.set(PREFIX + "quick.ordering-policy", policy);
    queues.set(PREFIX + "quick.ordering-policy.starting-timeout", QUICK_TIMEOUT_MILLIS + "ms");
    yarn = new MiniYarnBurst("drip-feed", NODE_MB, queues);
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
    List<List<AppTimeline>> runs = bursts(GIVE_UP_MILLIS, "fifo", "tuned", "drip");
    BurstStats fifo = BurstStats.of("FIFO (AM limit 100%)", runs.get(0));
    BurstStats tuned = BurstStats.of("FIFO, max-am-resource-percent .25", runs.get(1));
    List<AppTimeline> dripApps = runs.get(2);
    BurstStats drip = BurstStats.of("drip-feed (max-starting 1)", dripApps);
    String table = table(2048, fifo, tuned, drip);
    report(table);

    assertPolicyProperty(drip, dripApps, table);
    // The queue serves about 3 applications with their executors; FIFO hands out AMs to the
    // whole burst before the first driver has registered and asked, so at least as many AMs as
    // the queue can serve sit there without an executor at once (all 6 in the recorded runs).
    assertTrue(fifo.maxAmsWithoutExecutor() >= 3,
        "FIFO should fill the queue with AMs that hold no executor (>= 3 at once)\n" + table);
  }

  @Test
  void burstIntoAQueueThatFitsOnlyAmsDeadlocksFifoNotDripFeed() throws Exception {
    List<List<AppTimeline>> runs = bursts(SMALL_GIVE_UP_MILLIS, "small-fifo", "small-tuned",
        "small-drip");
    BurstStats fifo = BurstStats.of("FIFO (AM limit 100%)", runs.get(0));
    BurstStats tuned = BurstStats.of("FIFO, max-am-resource-percent .25", runs.get(1));
    List<AppTimeline> dripApps = runs.get(2);
    BurstStats drip = BurstStats.of("drip-feed (max-starting 1)", dripApps);
    String table = table(1024, fifo, tuned, drip) + "(drivers give up after "
        + SMALL_GIVE_UP_MILLIS / 1000 + " s without all executors)\n";
    report(table);

    assertPolicyProperty(drip, dripApps, table);
    assertTrue(fifo.succeeded() < BURST,
        "under FIFO the AMs should fill the queue and wait until they give up\n" + table);
  }

  private static String table(int queueMb, BurstStats... runs) {
    StringBuilder table = new StringBuilder("Burst of " + BURST + " apps x (AM "
        + MiniYarnBurst.AM_MB + " MiB + " + EXECUTORS + " executors x " + EXECUTOR_MB
        + " MiB, held " + HOLD_MILLIS + " ms) into a " + queueMb + " MiB queue;"
        + " maxAM0 = most applications holding an AM and no executor at once\n");
    table.append(BurstStats.header()).append('\n');
    for (BurstStats run : runs) {
      table.append(run.row()).append('\n');
    }
    return table.toString();
  }

  /** At most max-starting (1) idle AMs, everyone finishes, each gets executors in turn. */
  private static void assertPolicyProperty(BurstStats drip, List<AppTimeline> apps,
      String table) {
    assertEquals(BURST, drip.succeeded(), "every application finishes under the policy\n" + table);
    assertTrue(drip.maxAmsWithoutExecutor() <= 1,
        "the policy let " + drip.maxAmsWithoutExecutor() + " AMs wait without executors\n" + table);
    for (int i = 1; i < apps.size(); i++) {
      AppTimeline previous = apps.get(i - 1);
      AppTimeline next = apps.get(i);
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

  /**
   * Submits a burst into each queue at the same time (one application per queue in turn) and
   * waits for all of them; the queues' maximum capacities equal their capacities, so one
   * queue's burst cannot take another's memory. Returns the timelines per queue.
   */
  private static List<List<AppTimeline>> bursts(long giveUpMillis, String... queues)
      throws Exception {
    List<List<ApplicationId>> apps = new ArrayList<>();
    for (int q = 0; q < queues.length; q++) {
      apps.add(new ArrayList<>());
    }
    for (int i = 0; i < BURST; i++) {
      for (int q = 0; q < queues.length; q++) {
        apps.get(q).add(yarn.submit(queues[q], queues[q] + "-" + i, Set.of(), EXECUTORS,
            EXECUTOR_MB, HOLD_MILLIS, giveUpMillis));
      }
    }
    List<List<AppTimeline>> runs = new ArrayList<>();
    for (List<ApplicationId> queueApps : apps) {
      List<AppTimeline> timelines = yarn.awaitFinished(queueApps, FINISH_TIMEOUT);
      for (AppTimeline timeline : timelines) {
        System.out.println(timeline);
      }
      runs.add(timelines);
    }
    return runs;
  }

  private static Map<String, String> orderedMap(String... keysAndValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  /** Prints to the test output and appends to {@link #MEASUREMENTS}. */
  private static void report(String text) throws Exception {
    System.out.println(text);
    Files.writeString(MEASUREMENTS, text + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
