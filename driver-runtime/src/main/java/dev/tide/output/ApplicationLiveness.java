package dev.tide.output;

import java.io.IOException;

/**
 * Tells whether an application is still running, so that the debris of one that is not (an
 * output directory its AM could not clean up before it died) can be removed, and the output of
 * one that is can never be. The cluster side implements it (the AM asks the ResourceManager);
 * the driver knows nothing of YARN.
 */
@FunctionalInterface
public interface ApplicationLiveness {
  /** Assumes every application may be running: nothing of another application is removed. */
  ApplicationLiveness UNKNOWN = appId -> true;

  /**
   * True when {@code appId} may still run (also when the cluster cannot tell); false only when
   * it has certainly ended or is unknown to the cluster.
   *
   * @throws IOException when the cluster cannot be asked; callers treat that as running
   */
  boolean isRunning(String appId) throws IOException;
}
