package dev.tide.network;

/** Looks up an application's secret; the server side of every Tide handshake uses one. */
@FunctionalInterface
public interface AppSecrets {
  /** @return the secret, or null if the application is unknown here */
  byte[] secretFor(String appId);
}
