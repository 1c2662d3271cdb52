package dev.tide.driver.job;

import java.util.List;

/**
 * The stages of a job: one map task per split, a shuffle into {@code reducers} partitions, one
 * reduce task per partition writing under {@code outputPath} (a Hadoop FileSystem URI, or empty
 * for no output). Mapper and reducer are class names with public no-arg constructors.
 */
public record JobPlan(String name, List<InputSplit> splits, String mapperClass,
    String reducerClass, int reducers, String outputPath) {
  public JobPlan {
    splits = List.copyOf(splits);
    if (splits.isEmpty()) {
      throw new IllegalArgumentException("job " + name + " has no input splits");
    }
    if (reducers < 1) {
      throw new IllegalArgumentException("job " + name + " needs at least one reducer");
    }
  }
}
