package dev.tide.driver.alloc;

import java.util.List;
import java.util.Map;

/**
 * What the allocation policies read of the task scheduler: its demand (pending and running
 * tasks, the stages ahead), its executors (active, idle) and the locality of what waits. The
 * scheduler implements it; the policies know nothing else of it, so they run as well against
 * a simulated scheduler.
 *
 * <p>Threading: read on the thread that owns the scheduler.
 */
public interface SchedulerView {
  /** Tasks of submitted stages not yet started (tasks waiting for reruns included). */
  int pendingTasks();

  /** Task attempts running now. */
  int runningTasks();

  /** Executors that can take tasks (registered, not pending removal, not exiting). */
  int activeExecutors();

  /** Active executors with no running task, and since when. */
  List<IdleExecutor> idleExecutors();

  /** The running plan's stages not complete yet ({@link DemandForecast}'s lookahead). */
  List<StageOutlook> stageOutlook();

  /** Tasks queued by stage submissions so far (reruns not counted). */
  long tasksSubmitted();

  /** Pending tasks that prefer some host. */
  int localityAwareTasks();

  /** For each host, how many pending tasks prefer it. */
  Map<String, Integer> hostToLocalTaskCount();
}
