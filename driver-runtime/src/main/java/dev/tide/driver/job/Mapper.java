package dev.tide.driver.job;

/**
 * Runs one map task over one split in an executor and emits key/value records; the framework
 * partitions them by key over the reducers. A new instance is made for every task attempt.
 */
public interface Mapper {
  /** Called once before {@link #map}; the default does nothing. */
  default void configure(JobContext context) throws Exception {}

  void map(InputSplit split, MapOutput output) throws Exception;

  /** Where a mapper's records go. */
  interface MapOutput {
    void emit(byte[] key, byte[] value);
  }
}
