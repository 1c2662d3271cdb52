package dev.tide.driver.alloc;

import java.util.List;

/**
 * What the scheduler knows now of one stage of the running plan, for the allocation policy's
 * lookahead ({@link DemandForecast}): its place in the DAG, its width and
 * the run times seen so far. An immutable snapshot; times in milliseconds.
 *
 * @param id the stage's id within its plan
 * @param parents ids of the stages whose output it reads (empty for an input stage)
 * @param tasks how many tasks the stage has in all
 * @param submitted its tasks were queued (its parents' outputs all existed once)
 * @param complete every task of it has an output
 * @param pendingTasks its tasks waiting for a slot
 * @param runningElapsedMillis for each of its running tasks, how long it has run
 * @param finishedMillis run times of its succeeded tasks, ascending
 * @param firstFinishAgoMillis how long ago its first task succeeded, or -1
 * @param lastFinishAgoMillis how long ago its latest task succeeded, or -1
 */
public record StageOutlook(int id, List<Integer> parents, int tasks, boolean submitted,
    boolean complete, int pendingTasks, long[] runningElapsedMillis, long[] finishedMillis,
    long firstFinishAgoMillis, long lastFinishAgoMillis) {
  public StageOutlook {
    parents = List.copyOf(parents);
    runningElapsedMillis = runningElapsedMillis.clone();
    finishedMillis = finishedMillis.clone();
  }

  @Override
  public long[] runningElapsedMillis() {
    return runningElapsedMillis.clone();
  }

  @Override
  public long[] finishedMillis() {
    return finishedMillis.clone();
  }

  public int runningTasks() {
    return runningElapsedMillis.length;
  }
}
