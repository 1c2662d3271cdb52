package dev.tide.driver.job;

/**
 * Chooses the partition (the reduce task of the reading stage) of each record a stage emits. The
 * default hashes the key ({@link RecordCodec#partition}); a plan names another for a shuffle stage
 * with {@link JobPlan.Partitioning}, e.g. {@link RangePartitioner} for a total order. A new
 * instance is made in every writing task and configured once with the plan's bytes.
 */
public interface Partitioner {
  /** The bytes the plan gave ({@link JobPlan.Partitioning#spec}); the default ignores them. */
  default void configure(byte[] spec) {}

  /** A partition in {@code [0, partitions)}. */
  int partition(byte[] key, int partitions);

  /** By key hash: equal keys meet, nothing is ordered across partitions. */
  final class Hash implements Partitioner {
    @Override
    public int partition(byte[] key, int partitions) {
      return RecordCodec.partition(key, partitions);
    }
  }
}
