package dev.tide.driver.scheduler;

import dev.tide.driver.job.JobPlan;
import dev.tide.rpc.MapLocation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The scheduler's view of one stage: which tasks wait, how often each was tried and failed, and
 * where each finished task's output is (for a stage feeding a shuffle, the service that serves
 * it; for the last stage, only that it is done). Owned by {@link JobScheduler}'s thread.
 */
final class StageProgress {
  final JobPlan.Stage stage;
  final PendingTasks pending = new PendingTasks();
  final int[] attempts;
  final int[] failures;
  private final MapLocation[] outputs;
  /** The scheduler's output sequence number when each output was (last) set. */
  private final long[] outputSequence;
  private int done;
  /** Whether its tasks were queued: its parents' outputs all existed once. */
  boolean submitted;
  boolean completedOnce;
  /** Run times of its succeeded task attempts, in the order they ended. */
  private long[] finishedMillis = new long[16];
  private int finishedCount;
  private long[] sortedFinished = new long[0];
  long firstFinishAtMillis = -1;
  long lastFinishAtMillis = -1;
  /** Stragglers waiting for an executor to run their speculative attempt, by task index. */
  final java.util.Map<Integer, SpeculationRule.Straggler> speculatable =
      new java.util.LinkedHashMap<>();
  /** Task indexes that got a speculative attempt (at most one each). */
  final java.util.Set<Integer> speculated = new java.util.HashSet<>();

  StageProgress(JobPlan.Stage stage) {
    this.stage = stage;
    this.attempts = new int[stage.tasks()];
    this.failures = new int[stage.tasks()];
    this.outputs = new MapLocation[stage.tasks()];
    this.outputSequence = new long[stage.tasks()];
  }

  void submit() {
    submitted = true;
    for (int i = 0; i < stage.tasks(); i++) {
      if (outputs[i] == null) {
        pending.add(i); // (unless it waits already)
      }
    }
  }

  /** A task attempt of this stage succeeded at {@code nowMillis} after running {@code millis}. */
  void taskSucceeded(long millis, long nowMillis) {
    if (firstFinishAtMillis < 0) {
      firstFinishAtMillis = nowMillis;
    }
    lastFinishAtMillis = nowMillis;
    if (finishedCount == finishedMillis.length) {
      finishedMillis = Arrays.copyOf(finishedMillis, finishedCount * 2);
    }
    finishedMillis[finishedCount++] = millis;
  }

  /** The run times of its succeeded attempts, ascending (sorted again only when they grew). */
  long[] finishedMillisAscending() {
    if (sortedFinished.length != finishedCount) {
      sortedFinished = Arrays.copyOf(finishedMillis, finishedCount);
      Arrays.sort(sortedFinished);
    }
    return sortedFinished;
  }

  boolean isComplete() {
    return done == stage.tasks();
  }

  boolean isDone(int index) {
    return outputs[index] != null;
  }

  int doneTasks() {
    return done;
  }

  /** @param sequence the scheduler's sequence number of this output (increasing) */
  void setOutput(int index, MapLocation location, long sequence) {
    if (outputs[index] == null) {
      done++;
    }
    outputs[index] = location;
    outputSequence[index] = sequence;
  }

  /** The sequence number the output of {@code index} was set with (0: never). */
  long outputSequence(int index) {
    return outputSequence[index];
  }

  /** Forgets an output; true if there was one. */
  boolean loseOutput(int index) {
    if (outputs[index] == null) {
      return false;
    }
    outputs[index] = null;
    done--;
    return true;
  }

  /** Indexes of finished tasks whose output is served at {@code host:port}. */
  List<Integer> outputsAt(String host, int port) {
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < outputs.length; i++) {
      if (outputs[i] != null && outputs[i].host().equals(host)
          && outputs[i].shufflePort() == port) {
        at.add(i);
      }
    }
    return at;
  }

  List<MapLocation> outputs() {
    List<MapLocation> all = new ArrayList<>();
    for (MapLocation location : outputs) {
      if (location != null) {
        all.add(location);
      }
    }
    return all;
  }

  /** Queues a task again unless it is done or already waiting; front of the queue. */
  void requeue(int index) {
    if (outputs[index] == null) {
      pending.addFirst(index); // (unless it waits already)
    }
  }

  String label() {
    return stage.id() + " '" + stage.name() + "'";
  }
}
