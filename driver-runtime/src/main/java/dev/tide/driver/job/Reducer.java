package dev.tide.driver.job;

import java.io.OutputStream;
import java.util.Iterator;

/**
 * Runs one reduce task in an executor over every record of one partition, in no particular order,
 * and writes the task's output. A new instance is made for every task attempt.
 */
public interface Reducer {
  default void configure(JobContext context) throws Exception {}

  void reduce(int partition, Iterator<Record> records, ReduceOutput output) throws Exception;

  /** The task's output file; it becomes visible only when the attempt commits. */
  interface ReduceOutput {
    OutputStream open() throws java.io.IOException;
  }
}
