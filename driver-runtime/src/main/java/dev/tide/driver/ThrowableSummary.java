package dev.tide.driver;

/**
 * A throwable on one line, for diagnostics a user reads in YARN's application report: its
 * class and message, where it was thrown and at most three causes. A stack trace belongs in the
 * log; this line says enough to tell a library clash ({@code NoSuchMethodError} at a user
 * class's frame) from a bug.
 */
public final class ThrowableSummary {
  private static final int MAX_CAUSES = 3;

  private ThrowableSummary() {}

  /** The throwable, its causes and where it was thrown, on one line. */
  public static String of(Throwable t) {
    StringBuilder text = new StringBuilder(t.toString());
    StackTraceElement[] trace = t.getStackTrace();
    if (trace.length > 0) {
      text.append(" (at ").append(trace[0]).append(')');
    }
    // At most a few causes: a cause chain can be long, or even a cycle.
    Throwable cause = t.getCause();
    for (int n = 0; cause != null && n < MAX_CAUSES; n++, cause = cause.getCause()) {
      text.append("; caused by ").append(cause);
    }
    return text.toString();
  }
}
