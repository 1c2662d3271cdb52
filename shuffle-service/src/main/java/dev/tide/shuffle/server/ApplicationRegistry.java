package dev.tide.shuffle.server;

import dev.tide.network.AppSecrets;
import dev.tide.shuffle.ApplicationIdFormat;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The applications a shuffle server serves: application id -> (user, secret). Filled by the
 * NodeManager adapter; read by handshakes (as {@link AppSecrets}) and by every request.
 * Thread-safe (a concurrent map of immutable entries).
 */
public final class ApplicationRegistry implements AppSecrets {
  private static final Logger LOG = LoggerFactory.getLogger(ApplicationRegistry.class);

  /** One registered application. */
  public record RegisteredApp(String appId, String user, byte[] secret) {
    public RegisteredApp {
      secret = secret.clone();
    }

    @Override
    public byte[] secret() {
      return secret.clone();
    }

    @Override
    public String toString() {
      return "RegisteredApp[" + appId + ", user " + user + "]";
    }
  }

  private final Map<String, RegisteredApp> apps = new ConcurrentHashMap<>();

  /**
   * Registers or refreshes an application. Registering the same app again (once per container)
   * is expected; a changed secret or user replaces the old one and is logged.
   *
   * @throws IllegalArgumentException for an invalid application id, user or empty secret
   */
  public void register(String appId, String user, byte[] secret) {
    ApplicationIdFormat.requireValidAppId(appId);
    ApplicationIdFormat.requireValidUser(user);
    if (secret == null || secret.length == 0) {
      throw new IllegalArgumentException("no shuffle secret for application " + appId);
    }
    RegisteredApp next = new RegisteredApp(appId, user, secret);
    RegisteredApp previous = apps.put(appId, next);
    if (previous == null) {
      LOG.info("registered application {} of user {}", appId, user);
    } else if (!previous.user().equals(user) || !Arrays.equals(previous.secret, secret)) {
      LOG.warn("application {} registered again with a different user or secret (user {} -> {})",
          appId, previous.user(), user);
    }
  }

  /** @return true if the application was registered */
  public boolean remove(String appId) {
    RegisteredApp removed = apps.remove(appId);
    if (removed != null) {
      LOG.info("forgot application {}", appId);
    }
    return removed != null;
  }

  public Optional<RegisteredApp> lookup(String appId) {
    return Optional.ofNullable(appId == null ? null : apps.get(appId));
  }

  /** The registered applications at this moment, in no particular order. */
  public java.util.List<RegisteredApp> snapshot() {
    return java.util.List.copyOf(apps.values());
  }

  public int size() {
    return apps.size();
  }

  @Override
  public byte[] secretFor(String appId) {
    RegisteredApp app = appId == null ? null : apps.get(appId);
    return app == null ? null : app.secret.clone();
  }
}
