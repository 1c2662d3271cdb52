package dev.tide.rpc;

import dev.tide.driver.job.JobPlan;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
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

  /** Whether a task reads a split (MAP) or shuffled records (REDUCE); the wire code is fixed. */
  public enum Kind {
    MAP(0), REDUCE(1);

    private final int wire;

    Kind(int wire) {
      this.wire = wire;
    }

    public int wire() {
      return wire;
    }
  }

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

  /** Writes the LAUNCH_TASK payload (RPC-PROTOCOL.md). */
  void encode(ByteBuf out) {
    out.writeLong(taskId);
    out.writeByte(kind.wire());
    out.writeInt(stageId);
    out.writeInt(index);
    out.writeInt(attempt);
    RpcWriter.string(out, taskClass);
    RpcWriter.bytes(out, splitPayload);
    RpcWriter.strings(out, preferredHosts);
    out.writeInt(inputs.size());
    for (ShuffleInput input : inputs) {
      out.writeInt(input.shuffleId());
      out.writeInt(input.mapOutputs().size());
      for (MapLocation l : input.mapOutputs()) {
        out.writeInt(l.mapId());
        RpcWriter.string(out, l.host());
        out.writeInt(l.shufflePort());
      }
    }
    out.writeInt(outputPartitions);
    RpcWriter.string(out, outputPartitioning.partitionerClass());
    RpcWriter.bytes(out, outputPartitioning.spec());
    RpcWriter.string(out, outputPath);
    out.writeByte(dataset == null ? 0 : dataset.cache() ? 2 : 1);
    if (dataset != null) {
      RpcWriter.string(out, dataset.name());
      RpcWriter.string(out, dataset.mapperClass());
    }
    RpcWriter.bytes(out, spec);
  }

  /** Reads what {@link #encode} wrote. */
  static TaskDescription decode(RpcReader in) {
    long taskId = in.i64("taskId");
    Kind kind = in.code("kind", Kind.values(), Kind::wire);
    int stageId = in.i32("stageId");
    int index = in.i32("index");
    int attempt = in.i32("attempt");
    String taskClass = in.string("taskClass");
    byte[] split = in.bytes("splitPayload");
    int hostCount = in.count("preferredHosts", 4);
    List<String> hosts = new ArrayList<>(hostCount);
    for (int i = 0; i < hostCount; i++) {
      hosts.add(in.string("preferredHosts[" + i + "]"));
    }
    int inputCount = in.count("inputs", 8);
    List<ShuffleInput> inputs = new ArrayList<>(inputCount);
    for (int s = 0; s < inputCount; s++) {
      String at = "inputs[" + s + "]";
      int shuffleId = in.i32(at + ".shuffleId");
      int mapCount = in.count(at + ".mapOutputs", 12);
      List<MapLocation> outputs = new ArrayList<>(mapCount);
      for (int i = 0; i < mapCount; i++) {
        String map = at + ".mapOutputs[" + i + "]";
        outputs.add(new MapLocation(in.i32(map + ".mapId"), in.string(map + ".host"),
            in.i32(map + ".shufflePort")));
      }
      inputs.add(new ShuffleInput(shuffleId, outputs));
    }
    int outputPartitions = in.i32("outputPartitions");
    JobPlan.Partitioning partitioning = new JobPlan.Partitioning(
        in.string("partitionerClass"), in.bytes("partitionerSpec"));
    String outputPath = in.string("outputPath");
    int datasetFlag = in.u8("dataset");
    if (datasetFlag > 2) {
      throw in.malformed("dataset", "unknown code " + datasetFlag);
    }
    DatasetBlock dataset = datasetFlag == 0 ? null : new DatasetBlock(in.string("dataset.name"),
        in.string("dataset.mapperClass"), datasetFlag == 2);
    return new TaskDescription(taskId, kind, stageId, index, attempt, taskClass, split, hosts,
        inputs, outputPartitions, partitioning, outputPath, dataset, in.bytes("spec"));
  }

  /** e.g. {@code map 3 (stage 0, attempt 0)} */
  public String describe() {
    return kind.name().toLowerCase() + " " + index + " (stage " + stageId + ", attempt "
        + attempt + ")";
  }
}
