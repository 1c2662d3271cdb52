package dev.tide.rpc;

import dev.tide.driver.job.JobPlan;
import java.util.List;

/**
 * Everything an executor needs to run one task attempt. Map tasks (of an input stage) carry their
 * split; reduce tasks carry, for each parent stage, where every map output of its shuffle is
 * served. A task that feeds a later stage writes one map output of shuffle {@code stageId} with
 * {@code outputPartitions} partitions; a task of the last stage writes under {@code outputPath}.
 *
 * @param taskId unique per attempt within the application
 * @param index the task's index in its stage: the split, or the partition it reduces
 * @param outputPartitions partitions of the shuffle this task writes; 0 for the last stage
 * @param outputPartitioning how the records it writes are spread over those partitions
 * @param dataset for a map task over a {@link JobPlan.Dataset}: which block it reads; else null
 * @param spec the bytes the plan gave the task's stage ({@code JobContext.spec()})
 */
public record TaskDescription(long taskId, Kind kind, int stageId, int index, int attempt,
    String taskClass, byte[] splitPayload, List<String> preferredHosts,
    List<ShuffleInput> inputs, int outputPartitions, JobPlan.Partitioning outputPartitioning,
    String outputPath, DatasetBlock dataset, byte[] spec) {

  /** Whether a task reads a split (MAP) or shuffled records (REDUCE). */
  public enum Kind { MAP, REDUCE }

  /** One parent stage's shuffle, as a reduce task reads it. */
  public record ShuffleInput(int shuffleId, List<MapLocation> mapOutputs) {
    public ShuffleInput {
      mapOutputs = List.copyOf(mapOutputs);
    }
  }

  /**
   * The block of a dataset a map task reads: split {@code index} of dataset {@code name}, whose
   * records {@code mapperClass} makes from the split; kept in the executor's memory if
   * {@code cache}.
   */
  public record DatasetBlock(String name, String mapperClass, boolean cache) {}

  public TaskDescription {
    spec = spec.clone();
    splitPayload = splitPayload.clone();
    preferredHosts = List.copyOf(preferredHosts);
    inputs = List.copyOf(inputs);
  }

  @Override
  public byte[] spec() {
    return spec.clone();
  }

  @Override
  public byte[] splitPayload() {
    return splitPayload.clone();
  }

  /** The shuffle a task writes: its own stage's id. */
  public int shuffleId() {
    return stageId;
  }

  /** e.g. {@code map 3 (stage 0, attempt 0)} */
  public String describe() {
    return kind.name().toLowerCase() + " " + index + " (stage " + stageId + ", attempt "
        + attempt + ")";
  }
}
