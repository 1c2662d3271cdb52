package dev.tide.driver.job;

/**
 * The map side of a stage over a {@link JobPlan.Dataset}: gets the dataset's records of one split
 * (from an executor's cache when the dataset is cached and a block is there, else from the
 * dataset's own {@link Mapper} run again over the split) one at a time, and emits records to the
 * next stage. A new instance is made for every task attempt.
 */
public interface RecordMapper {
  default void configure(JobContext context) throws Exception {}

  void map(KeyValue record, Mapper.MapOutput output) throws Exception;

  /** Called after the split's last record; the default does nothing. */
  default void finish(Mapper.MapOutput output) throws Exception {}

  /** As {@link Mapper#combiner()}. */
  default Combiner combiner() {
    return null;
  }
}
