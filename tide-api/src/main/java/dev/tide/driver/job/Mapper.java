package dev.tide.driver.job;

/**
 * Runs one map task over one split in an executor and emits key/value records; the framework
 * partitions them by key over the reducers. A new instance is made for every task attempt.
 */
public interface Mapper {
  /** Called once before {@link #map}; the default does nothing. */
  default void configure(JobContext context) throws Exception {}

  void map(InputSplit split, MapOutput output) throws Exception;

  /**
   * The combiner that folds this mapper's values of one key before the shuffle (run on every
   * spill of the sort buffer and on their merge), or null for none (the default).
   */
  default Combiner combiner() {
    return null;
  }

  /**
   * Where a mapper's records go: into a sort buffer of bounded size
   * ({@code tide.executor.shuffle.sort.buffer}), spilled to local disk when full.
   */
  interface MapOutput {
    void emit(byte[] key, byte[] value) throws java.io.IOException;
  }
}
