package dev.tide.driver;

/** How a job ended: success, or failure with a diagnostic a user can act on. */
public record JobResult(boolean succeeded, String diagnostics) {
  public static JobResult success(String summary) {
    return new JobResult(true, summary);
  }

  public static JobResult failure(String diagnostics) {
    return new JobResult(false, diagnostics);
  }
}
