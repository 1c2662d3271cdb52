package dev.tide.driver.job;

import java.io.OutputStream;
import java.util.Iterator;

/**
 * Runs one reduce task in an executor over every record of one partition. Records come sorted by
 * key (bytes compared unsigned), so all values of a key are adjacent and a reducer can stream:
 * they are fetched and merged in bounded memory, spilling to local disk, so a reducer that keeps
 * only the current key's state needs no more heap however large its partition. In a stage with
 * several parents (a join), {@link KeyValue#input()} tells which parent a record came from. A new
 * instance is made for every task attempt.
 */
public interface Reducer {
  default void configure(JobContext context) throws Exception {}

  void reduce(int partition, Iterator<KeyValue> records, ReduceOutput output) throws Exception;

  /**
   * Where a reduce task's results go. The last stage of a plan writes the job's output with
   * {@link #open}; any other stage emits records shuffled to the next stage with {@link #emit}.
   * Calling the other one fails the task with a message saying which to use.
   */
  interface ReduceOutput {
    /** The task's output file; it becomes visible only when the job commits. */
    OutputStream open() throws java.io.IOException;

    /** A record for the next stage, partitioned by key over its reducers. */
    void emit(byte[] key, byte[] value) throws java.io.IOException;
  }
}
