package dev.tide.am.yarn;

import dev.tide.output.ApplicationLiveness;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the ResourceManager whether an application still runs: it does not once it is
 * FINISHED, FAILED or KILLED, or when the ResourceManager no longer knows it. Anything else,
 * including an id that is not an application id, counts as running. The YarnClient is started
 * on the first question. Thread-safe.
 */
public final class YarnApplicationLiveness implements ApplicationLiveness, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(YarnApplicationLiveness.class);
  public static final EnumSet<YarnApplicationState> ENDED = EnumSet.of(
      YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  private final Configuration conf;
  private YarnClient yarn;

  public YarnApplicationLiveness(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public boolean isRunning(String appId) throws IOException {
    ApplicationId id;
    try {
      id = ApplicationId.fromString(appId);
    } catch (IllegalArgumentException e) {
      return true; // not ours to judge
    }
    try {
      return !ENDED.contains(client().getApplicationReport(id).getYarnApplicationState());
    } catch (ApplicationNotFoundException e) {
      return false;
    } catch (YarnException e) {
      throw new IOException("cannot ask the ResourceManager about " + appId + ": " + e, e);
    }
  }

  /**
   * Whether the ResourceManager reports {@code appId} KILLED, asked until it reports an end state
   * for up to {@code wait} (while a kill is under way the application is KILLING, which a report
   * shows as the state before it); false for another end state, when the wait runs out, or when
   * the ResourceManager cannot be asked (a secure cluster may not let the AM's user ask).
   */
  public boolean wasKilled(ApplicationId appId, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    try {
      while (true) {
        YarnApplicationState state = client().getApplicationReport(appId)
            .getYarnApplicationState();
        if (ENDED.contains(state) || System.nanoTime() - deadline >= 0) {
          return state == YarnApplicationState.KILLED;
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (YarnException | IOException | RuntimeException e) {
      LOG.warn("Cannot ask the ResourceManager for the state of {}: {}", appId, e.toString());
      return false;
    }
  }

  private synchronized YarnClient client() {
    if (yarn == null) {
      yarn = YarnClient.createYarnClient();
      yarn.init(conf);
      yarn.start();
    }
    return yarn;
  }

  @Override
  public synchronized void close() {
    if (yarn != null) {
      yarn.stop();
      yarn = null;
    }
  }
}
