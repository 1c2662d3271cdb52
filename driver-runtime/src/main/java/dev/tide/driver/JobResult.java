package dev.tide.driver;

import dev.tide.driver.events.JobEndState;

/**
 * How a job ended: succeeded, failed (with a diagnostic a user can act on), or killed (the
 * application was killed from outside: {@code yarn application -kill}, Ctrl-C in the client);
 * the state is what the {@code jobEnd} event's {@code state} field says.
 */
public record JobResult(JobEndState state, String diagnostics) {
  public JobResult {
    if (state == null) {
      throw new IllegalArgumentException("a job result needs a state");
    }
  }

  public static JobResult success(String summary) {
    return new JobResult(JobEndState.SUCCEEDED, summary);
  }

  public static JobResult failure(String diagnostics) {
    return new JobResult(JobEndState.FAILED, diagnostics);
  }

  public static JobResult killed(String diagnostics) {
    return new JobResult(JobEndState.KILLED, diagnostics);
  }

  public boolean succeeded() {
    return state == JobEndState.SUCCEEDED;
  }
}
