package dev.tide.driver.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The shape of a job's plan, and the mistakes a plan's author is told about at build time. */
class JobPlanTest {
  private static final List<InputSplit> TWO_SPLITS = List.of(
      new InputSplit(new byte[] {1}, List.of("host-a")), new InputSplit(new byte[] {2}, List.of()));

  static final class Words implements Mapper {
    @Override
    public void map(InputSplit split, MapOutput output) {}
  }

  static final class Points implements RecordMapper {
    @Override
    public void map(KeyValue record, Mapper.MapOutput output) {}
  }

  static final class Sum implements Reducer {
    @Override
    public void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output) {}
  }

  private static void assertRejected(String message, Executable build) {
    assertEquals(message, assertThrows(IllegalArgumentException.class, build).getMessage());
  }

  @Test
  void theClassicPlanMapsEverySplitAndReducesIntoItsPartitions() {
    JobPlan plan = JobPlan.mapReduce("wc", TWO_SPLITS, Words.class, Sum.class, 3, "hdfs:///o");

    assertEquals("wc", plan.name());
    assertEquals(2, plan.stages().size());
    JobPlan.Stage map = plan.stage(0);
    assertTrue(map.isInput());
    assertEquals(2, map.tasks());
    assertEquals(Words.class.getName(), map.taskClass());
    assertEquals(1, map.consumer());
    assertEquals(List.of("host-a"), map.splits().get(0).preferredHosts());
    JobPlan.Stage reduce = plan.last();
    assertFalse(reduce.isInput());
    assertEquals(List.of(0), reduce.parents());
    assertEquals(-1, reduce.consumer());
    assertEquals(3, plan.outputPartitions(0), "the map writes one partition per reducer");
    assertEquals(0, plan.outputPartitions(1), "the last stage writes files, not a shuffle");
    assertEquals(Partitioner.Hash.class.getName(),
        plan.outputPartitioning(0).partitionerClass());
    assertEquals(5, plan.totalTasks());
    assertEquals("hdfs:///o", plan.outputPath());
  }

  @Test
  void aJoinReadsEachParentsRecordsAndAChainPassesItsConsumersPartitioning() {
    JobPlan.Builder b = JobPlan.builder("join");
    JobPlan.Stage left = b.input("left", TWO_SPLITS, Words.class);
    JobPlan.Stage right = b.input("right", TWO_SPLITS.subList(0, 1), Words.class);
    JobPlan.Stage joined = b.shuffle("join", 4, Sum.class, left, right);
    JobPlan.Partitioning ranges = JobPlan.Partitioning.range(List.of(new byte[] {9}));
    JobPlan.Stage ordered = b.shuffle("order", 2, Sum.class, ranges, joined);
    JobPlan plan = b.output(ordered, null);

    assertEquals(List.of(0, 1), plan.stage(2).parents());
    assertEquals(2, plan.stage(0).consumer());
    assertEquals(2, plan.stage(1).consumer());
    assertEquals(3, plan.stage(2).consumer());
    assertEquals(4, plan.outputPartitions(1));
    assertEquals(2, plan.outputPartitions(2));
    assertEquals(RangePartitioner.class.getName(), plan.outputPartitioning(2).partitionerClass());
    assertArrayEquals(ranges.spec(), plan.outputPartitioning(2).spec());
    assertEquals("", plan.outputPath(), "no output path: no output");
    assertEquals(2 + 1 + 4 + 2, plan.totalTasks());
  }

  @Test
  void aStageOverADatasetRunsOneTaskPerSplitWithItsSpec() {
    JobPlan.Dataset points = JobPlan.Dataset.of("points", TWO_SPLITS, Words.class);
    assertFalse(points.cached());
    JobPlan.Dataset cached = points.cache();
    assertTrue(cached.cached());
    assertEquals(points.splits(), cached.splits());

    JobPlan.Builder b = JobPlan.builder("iterate");
    JobPlan.Stage assign = b.input("assign", cached, Points.class, new byte[] {7});
    JobPlan plan = b.output(b.shuffle("update", 1, Sum.class, assign), "out");

    assertEquals(2, plan.stage(0).tasks());
    assertEquals(cached, plan.stage(0).dataset());
    assertEquals(Points.class.getName(), plan.stage(0).taskClass());
    assertArrayEquals(new byte[] {7}, plan.stage(0).spec());
    assertNull(plan.stage(1).dataset());
  }

  @Test
  void aStageGivenASpecLaterKeepsItsPlaceAndCopiesTheBytes() {
    JobPlan.Builder b = JobPlan.builder("spec");
    JobPlan.Stage map = b.input("map", TWO_SPLITS, Words.class);
    JobPlan.Stage reduce = b.shuffle("reduce", 2, Sum.class, map);
    byte[] model = {1, 2, 3};
    JobPlan.Stage withModel = b.withSpec(reduce, model);
    model[0] = 99;
    JobPlan plan = b.output(withModel, "out");

    assertEquals(reduce.id(), withModel.id());
    assertArrayEquals(new byte[] {1, 2, 3}, plan.last().spec());
    plan.last().spec()[1] = 42;
    assertArrayEquals(new byte[] {1, 2, 3}, plan.last().spec(), "a plan's bytes are its own");
  }

  @Test
  void badPlansAreRejectedNamingTheStageAndTheJob() {
    assertRejected("a job plan needs a name", () -> JobPlan.builder(" "));
    JobPlan.Builder b = JobPlan.builder("j");
    assertRejected("stage 'm' of job j has no input splits",
        () -> b.input("m", List.of(), Words.class));
    JobPlan.Stage map = b.input("map", TWO_SPLITS, Words.class);
    assertRejected("stage 'r' of job j needs at least one partition, got 0",
        () -> b.shuffle("r", 0, Sum.class, map));
    assertRejected("stage 'r' of job j needs at least one parent stage",
        () -> b.shuffle("r", 1, Sum.class));
    JobPlan.Stage foreign = JobPlan.builder("other").input("elsewhere", TWO_SPLITS, Words.class);
    assertRejected("stage 'elsewhere' is not a stage of job j",
        () -> b.shuffle("r", 1, Sum.class, foreign));
    b.shuffle("first", 1, Sum.class, map);
    assertRejected("stage 'map' already feeds stage 'first'; a stage's records feed one stage",
        () -> b.shuffle("second", 1, Sum.class, map));
    assertRejected("dataset 'd' has no input splits",
        () -> JobPlan.Dataset.of("d", List.of(), Words.class));
  }

  @Test
  void theOutputStageMustBeTheLastShuffleAndEveryOtherStageMustFeedOne() {
    JobPlan.Builder onlyInput = JobPlan.builder("j");
    JobPlan.Stage map = onlyInput.input("map", TWO_SPLITS, Words.class);
    assertRejected("the output stage of job j must be a shuffle stage (reducers write the"
        + " output)", () -> onlyInput.output(map, "out"));

    JobPlan.Builder b = JobPlan.builder("j");
    JobPlan.Stage first = b.shuffle("reduce", 1, Sum.class, b.input("map", TWO_SPLITS,
        Words.class));
    b.input("dangling", TWO_SPLITS, Words.class);
    assertRejected("the output stage of job j must be the last stage added",
        () -> b.output(first, "out"));
    JobPlan.Builder loose = JobPlan.builder("j");
    loose.input("unread", TWO_SPLITS, Words.class);
    JobPlan.Stage last = loose.shuffle("reduce", 1, Sum.class,
        loose.input("map", TWO_SPLITS, Words.class));
    assertRejected("stage 'unread' of job j feeds no stage", () -> loose.output(last, "out"));
  }

  @Test
  void splitsAndSpecsAreCopiedInAndOut() {
    byte[] payload = {5};
    InputSplit split = new InputSplit(payload, List.of());
    payload[0] = 6;
    assertArrayEquals(new byte[] {5}, split.payload());
    split.payload()[0] = 7;
    assertArrayEquals(new byte[] {5}, split.payload());
  }
}
