package dev.tide.driver;

/**
 * How a job ended: succeeded, failed (with a diagnostic a user can act on), or killed (the
 * application was killed from outside: {@code yarn application -kill}, Ctrl-C in the client).
 */
public record JobResult(State state, String diagnostics) {
  /** How a job ended; {@link #eventName()} is the {@code state} field of the {@code jobEnd} event. */
  public enum State {
    SUCCEEDED, FAILED, KILLED;

    /** As the event log writes it: {@code succeeded}, {@code failed} or {@code killed}. */
    public String eventName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public JobResult {
    if (state == null) {
      throw new IllegalArgumentException("a job result needs a state");
    }
  }

  public static JobResult success(String summary) {
    return new JobResult(State.SUCCEEDED, summary);
  }

  public static JobResult failure(String diagnostics) {
    return new JobResult(State.FAILED, diagnostics);
  }

  public static JobResult killed(String diagnostics) {
    return new JobResult(State.KILLED, diagnostics);
  }

  public boolean succeeded() {
    return state == State.SUCCEEDED;
  }
}
