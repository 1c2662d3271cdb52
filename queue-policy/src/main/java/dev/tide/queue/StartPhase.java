package dev.tide.queue;

/** Where an application is on its way to having executors, as the queue policy sees it. */
public enum StartPhase {
  /** Waiting for its AM container. */
  ACCEPTED("Accepted"),
  /** AM container allocated, no executor yet, and the starting timeout has not elapsed. */
  STARTING("Starting"),
  /**
   * At least one non-AM container was allocated, or it was Starting for longer than the timeout,
   * or it carries the opt-out tag. Sticky: an application never leaves this phase.
   */
  RUNNING("Running");

  private final String label;

  StartPhase(String label) {
    this.label = label;
  }

  @Override
  public String toString() {
    return label;
  }
}
