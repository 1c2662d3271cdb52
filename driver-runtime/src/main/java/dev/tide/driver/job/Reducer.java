package dev.tide.driver.job;

import java.io.OutputStream;
import java.util.Iterator;

/**
 * Runs one reduce task in an executor over every record of one partition and writes the task's
 * output. Records come sorted by key (bytes compared unsigned), so all values of a key are
 * adjacent and a reducer can stream: they are fetched and merged in bounded memory, spilling to
 * local disk, so a reducer that keeps only the current key's state needs no more heap however
 * large its partition. A new instance is made for every task attempt.
 */
public interface Reducer {
  default void configure(JobContext context) throws Exception {}

  void reduce(int partition, Iterator<Record> records, ReduceOutput output) throws Exception;

  /** The task's output file; it becomes visible only when the attempt commits. */
  interface ReduceOutput {
    OutputStream open() throws java.io.IOException;
  }
}
