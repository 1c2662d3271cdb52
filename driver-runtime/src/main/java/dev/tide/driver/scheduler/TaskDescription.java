package dev.tide.driver.scheduler;

import java.util.List;

/**
 * Everything an executor needs to run one task attempt. Map tasks carry their split; reduce
 * tasks carry the locations of every map output of the shuffle.
 *
 * @param taskId unique per attempt within the application
 * @param index the map id (map stage) or the reduce partition (reduce stage)
 */
public record TaskDescription(long taskId, Kind kind, int stageId, int index, int attempt,
    int shuffleId, int reducers, String taskClass, byte[] splitPayload,
    List<String> preferredHosts, List<MapLocation> mapOutputs, String outputPath) {

  /** Which side of the shuffle a task is on. */
  public enum Kind { MAP, REDUCE }

  public TaskDescription {
    splitPayload = splitPayload.clone();
    preferredHosts = List.copyOf(preferredHosts);
    mapOutputs = List.copyOf(mapOutputs);
  }

  @Override
  public byte[] splitPayload() {
    return splitPayload.clone();
  }

  /** e.g. {@code map 3 (attempt 0)} */
  public String describe() {
    return kind.name().toLowerCase() + " " + index + " (attempt " + attempt + ")";
  }
}
