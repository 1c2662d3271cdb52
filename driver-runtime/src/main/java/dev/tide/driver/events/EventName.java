package dev.tide.driver.events;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The name of every event the driver and the AM write to the event log, with the name it has on
 * the wire ({@code "event"} of a line, docs/event-log.md). Writers ({@link EventLog#record}) and
 * readers (the web UI's model, the timeline, the schema, the history commands) use these
 * constants, so that a renamed event is a compile error, not a silently empty page. The list is
 * exported for tools that are not Java ({@code cluster/chaos.py}) as docs/event-names.txt, which
 * a test keeps equal to this enum. A wire name never changes: old logs must still read.
 */
public enum EventName {
  JOB_START("jobStart"),
  SETTINGS("settings"),
  JOB_END("jobEnd"),
  PLAN_START("planStart"),
  PLAN_END("planEnd"),
  STAGE_SUBMITTED("stageSubmitted"),
  STAGE_COMPLETED("stageCompleted"),
  TASK_START("taskStart"),
  TASK_END("taskEnd"),
  MAP_OUTPUT_LOST("mapOutputLost"),
  MIGRATION_STARTED("migrationStarted"),
  MIGRATION_FINISHED("migrationFinished"),
  MIGRATION_FAILED("migrationFailed"),
  CACHED_BLOCKS_LOST("cachedBlocksLost"),
  CONTAINER_ALLOCATED("containerAllocated"),
  CONTAINER_RELEASED("containerReleased"),
  EXECUTOR_LAUNCHED("executorLaunched"),
  EXECUTOR_REGISTERED("executorRegistered"),
  EXECUTOR_ADDED("executorAdded"),
  EXECUTOR_IDLE_REMOVAL("executorIdleRemoval"),
  TASK_SPECULATED("taskSpeculated"),
  EXECUTOR_REMOVED("executorRemoved"),
  CONTAINER_COMPLETED("containerCompleted"),
  NODE_EXCLUDED("nodeExcluded"),
  NODE_EXCLUSION_ENDED("nodeExclusionEnded"),
  NODE_EXCLUSION_LIFTED("nodeExclusionLifted"),
  TARGET_CHANGED("targetChanged"),
  TIMELINE("timeline"),
  BATCH_SUBMITTED("batchSubmitted"),
  BATCH_STARTED("batchStarted"),
  BATCH_COMPLETED("batchCompleted"),
  STREAMING_ALLOCATION("streamingAllocation"),
  NODE_DECOMMISSIONING("nodeDecommissioning"),
  NODE_LOST("nodeLost"),
  NODE_RUNNING("nodeRunning"),
  PREEMPTION_REQUESTED("preemptionRequested"),
  EXECUTOR_PREEMPTED("executorPreempted"),
  TOKENS_OBTAINED("tokensObtained"),
  TOKENS_RENEWED("tokensRenewed"),
  TOKENS_REOBTAINED("tokensReobtained"),
  TOKENS_SENT("tokensSent");

  private static final Map<String, EventName> BY_WIRE_NAME = Arrays.stream(values())
      .collect(Collectors.toUnmodifiableMap(EventName::wireName, Function.identity()));

  private final String wireName;

  EventName(String wireName) {
    this.wireName = wireName;
  }

  /** The name written in the log's lines, e.g. {@code taskEnd}. */
  public String wireName() {
    return wireName;
  }

  /** The event of this wire name; empty for a name this version does not know. */
  public static Optional<EventName> of(String wireName) {
    return Optional.ofNullable(BY_WIRE_NAME.get(wireName));
  }

  /** Every wire name, in declaration order (the content of docs/event-names.txt). */
  public static List<String> wireNames() {
    return Arrays.stream(values()).map(EventName::wireName).toList();
  }

  /** The wire name, so that messages and logs show what the event log shows. */
  @Override
  public String toString() {
    return wireName;
  }
}
