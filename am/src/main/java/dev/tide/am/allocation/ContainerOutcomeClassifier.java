package dev.tide.am.allocation;

/**
 * Decides whether a completed container counts as an executor failure and what to tell the user.
 * A strategy of its own so the policy can change without touching the allocator; implementations
 * are called on the allocator thread only.
 */
public interface ContainerOutcomeClassifier {
  /**
   * @param exitStatus YARN's exit status ({@code ContainerExitStatus} or the process's code)
   * @param yarnDiagnostics the diagnostics YARN attached to the container, possibly empty
   * @param releasedByAm true when the AM itself released this container
   */
  ContainerOutcome classify(int exitStatus, String yarnDiagnostics, boolean releasedByAm);
}
