package dev.tide.driver.job;

import java.util.List;
import org.apache.hadoop.conf.Configuration;

/** What a job sees when it plans, and what a mapper or reducer sees when it is configured. */
public record JobContext(Configuration conf, List<String> args) {
  public JobContext {
    args = List.copyOf(args);
  }
}
