package dev.tide.driver.alloc;

import java.util.ArrayList;
import java.util.List;

/**
 * Work a job announced ahead ({@code JobSession.expect(executors, within)}), offered to the batch
 * policy's lookahead as upcoming stages: each announcement is a stage of
 * {@code executors x tasksPerExecutor} tasks, runnable at its deadline, with a settled estimate
 * (nothing to extrapolate), so the lookahead asks for its executors one start latency before the
 * deadline and keeps idle ones for it, as for a stage of the running plan.
 *
 * <p>An announcement ends when tasks are submitted after it was made (the work came: from then
 * on the scheduler's own counts and forecast drive the target), or when as long again as its lead
 * has passed after its deadline with none submitted (it did not come). Announced stages carry
 * negative ids, which no plan's stage has.
 *
 * <p>Pure logic, times in milliseconds passed in. Not thread-safe: the driver's event loop owns
 * it.
 */
public final class ExpectedWork {
  private record Announcement(int id, int executors, long atMillis, long deadlineMillis,
      long submittedAt) {}

  private final List<Announcement> announced = new ArrayList<>();
  private int nextId = -1;

  /**
   * Records an announcement made at {@code nowMillis} of work for {@code executors} executors
   * within {@code withinMillis}; {@code tasksSubmitted} is the scheduler's count of tasks
   * submitted so far.
   */
  public void announce(int executors, long withinMillis, long nowMillis, long tasksSubmitted) {
    if (executors < 1 || withinMillis < 0) {
      throw new IllegalArgumentException("expected work of " + executors + " executors within "
          + withinMillis + " ms: executors must be >= 1 and the lead >= 0");
    }
    announced.add(new Announcement(nextId--, executors, nowMillis, nowMillis + withinMillis,
        tasksSubmitted));
  }

  /** Announcements still waiting for their work. */
  public int pending() {
    return announced.size();
  }

  /**
   * {@code forecast} with the announcements still waiting added as upcoming stages; forgets
   * those whose work came ({@code tasksSubmitted} grew since) or that expired.
   */
  public DemandForecast.Forecast addTo(DemandForecast.Forecast forecast, long nowMillis,
      long tasksSubmitted, int tasksPerExecutor) {
    announced.removeIf(a -> tasksSubmitted > a.submittedAt()
        || nowMillis > a.deadlineMillis() + (a.deadlineMillis() - a.atMillis()));
    if (announced.isEmpty()) {
      return forecast;
    }
    List<DemandForecast.UpcomingStage> upcoming = new ArrayList<>(forecast.upcoming());
    for (Announcement a : announced) {
      upcoming.add(new DemandForecast.UpcomingStage(a.id(),
          (int) Math.min(Integer.MAX_VALUE, (long) a.executors() * tasksPerExecutor),
          Math.max(0, a.deadlineMillis() - nowMillis)));
    }
    return new DemandForecast.Forecast(forecast.taskMillis(), forecast.taskMillisAtLeast(),
        upcoming, forecast.moreStages());
  }
}
