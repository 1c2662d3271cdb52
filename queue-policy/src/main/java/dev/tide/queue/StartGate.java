package dev.tide.queue;

import dev.tide.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drip-feed state machine of one queue, free of YARN types: it tracks each application's
 * {@link StartPhase} and decides which applications may be offered containers.
 *
 * <pre>
 *   Accepted --AM allocated--> Starting --executor allocated, or timeout elapsed--> Running
 *   Accepted --executor seen (recovery), or opt-out tag--------------------------> Running
 * </pre>
 *
 * <p>Admission ({@link #admit}): every Running application, in the caller's (FIFO) order; the
 * oldest {@code maxStarting} Starting ones; and, while fewer than {@code maxStarting} are
 * Starting, the oldest Accepted ones with pending demand to fill the remaining slots.
 *
 * <p>The timeout is checked lazily whenever a phase is read or an admission is computed; there is
 * no timer thread. Running is sticky, so an application that releases all its executors is not
 * starved later.
 *
 * <p>Threading: all methods are synchronized and short; none calls out of this class except to
 * the logger and the clock, so callers may hold scheduler locks. Callers must not hold this
 * object's monitor while calling into the scheduler.
 */
public final class StartGate {

  private static final Logger LOG = LoggerFactory.getLogger(StartGate.class);

  private final QueuePolicySettings settings;
  private final Clock clock;
  /** Guarded by {@code this}. */
  private final Map<String, Tracked> apps = new HashMap<>();

  public StartGate(QueuePolicySettings settings, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Monotonic milliseconds for the policy's timeout: only ever subtracted from each other, never
   * read as wall time.
   */
  private long nowMillis() {
    return TimeUnit.NANOSECONDS.toMillis(clock.nanos());
  }

  public QueuePolicySettings settings() {
    return settings;
  }

  /**
   * Starts tracking an application as Accepted, or as Running when it carries the opt-out tag.
   * Tracking an application again keeps what is known of it (a Running one stays Running).
   */
  public synchronized void track(String appId, boolean optedOut) {
    Tracked app = apps.computeIfAbsent(appId, id -> new Tracked(nowMillis()));
    if (optedOut && app.phase != StartPhase.RUNNING) {
      moveToRunning(appId, app, "opt-out tag " + settings.skipTag());
    }
  }

  /** Stops tracking an application (it finished or left the queue). */
  public synchronized void forget(String appId) {
    apps.remove(appId);
  }

  /** The application's AM container was allocated. Ignored for untracked applications. */
  public synchronized void amAllocated(String appId) {
    Tracked app = apps.get(appId);
    if (app != null) {
      noteAmAllocated(appId, app, true);
    }
  }

  /** A non-AM container of the application was allocated. Ignored for untracked applications. */
  public synchronized void executorAllocated(String appId) {
    Tracked app = apps.get(appId);
    if (app != null) {
      noteExecutor(appId, app);
    }
  }

  /** The application's phase now (the timeout applied), or {@code null} if it is not tracked. */
  public synchronized StartPhase phase(String appId) {
    Tracked app = apps.get(appId);
    if (app == null) {
      return null;
    }
    applyTimeout(appId, app);
    return app.phase;
  }

  /**
   * Applies the observed facts and returns the candidates that may be offered containers now, in
   * their given order.
   *
   * @param fifoOrder all schedulable applications of the queue, oldest (highest priority) first
   * @param facts reads the observation carried by a candidate; must not call into the scheduler
   */
  public synchronized <T> List<T> admit(List<T> fifoOrder, Function<T, AppObservation> facts) {
    List<StartPhase> phases = new ArrayList<>(fifoOrder.size());
    int starting = 0;
    for (T candidate : fifoOrder) {
      AppObservation seen = facts.apply(candidate);
      Tracked app = apps.computeIfAbsent(seen.appId(), id -> new Tracked(nowMillis()));
      if (seen.executorAllocated()) {
        noteExecutor(seen.appId(), app);
      } else if (seen.amAllocated()) {
        noteAmAllocated(seen.appId(), app, false);
      }
      applyTimeout(seen.appId(), app);
      phases.add(app.phase);
      if (app.phase == StartPhase.STARTING) {
        starting++;
      }
    }
    int startingSlots = settings.maxStarting();
    int acceptedSlots = Math.max(0, settings.maxStarting() - starting);
    List<T> admitted = new ArrayList<>(fifoOrder.size());
    for (int i = 0; i < fifoOrder.size(); i++) {
      T candidate = fifoOrder.get(i);
      switch (phases.get(i)) {
        case RUNNING:
          admitted.add(candidate);
          break;
        case STARTING:
          if (startingSlots > 0) {
            startingSlots--;
            admitted.add(candidate);
          }
          break;
        case ACCEPTED:
          if (acceptedSlots > 0 && facts.apply(candidate).pendingDemand()) {
            acceptedSlots--;
            admitted.add(candidate);
          }
          break;
        default:
          throw new IllegalStateException("unknown phase " + phases.get(i));
      }
    }
    return admitted;
  }

  /** How many tracked applications are in each phase now (the timeout applied). */
  public synchronized Map<StartPhase, Integer> phaseCounts() {
    Map<StartPhase, Integer> counts = new EnumMap<>(StartPhase.class);
    for (StartPhase phase : StartPhase.values()) {
      counts.put(phase, 0);
    }
    apps.forEach((id, app) -> {
      applyTimeout(id, app);
      counts.merge(app.phase, 1, Integer::sum);
    });
    return counts;
  }

  /** One line for the scheduler UI and logs: the settings and the phase counts. */
  public String describe() {
    Map<StartPhase, Integer> counts = phaseCounts();
    return "Running " + counts.get(StartPhase.RUNNING)
        + ", Starting " + counts.get(StartPhase.STARTING)
        + ", Accepted " + counts.get(StartPhase.ACCEPTED)
        + " (" + settings + ")";
  }

  /**
   * @param seenAllocated the scheduler's allocation event, not an observation of an AM already
   *     there (an application recovered after a ResourceManager restart, or one whose event was
   *     missed)
   */
  private void noteAmAllocated(String appId, Tracked app, boolean seenAllocated) {
    if (app.phase == StartPhase.ACCEPTED) {
      long now = nowMillis();
      app.phase = StartPhase.STARTING;
      app.startingSinceMillis = now;
      String how = seenAllocated
          ? "AM container allocated " + (now - app.acceptedSinceMillis) + " ms after it was added"
          : "its AM container was already there, e.g. recovered after a ResourceManager restart";
      LOG.info("{}: Accepted -> Starting ({}; no other application of the queue starts until it"
          + " has an executor or {} ms pass)", appId, how, settings.startingTimeout().toMillis());
    }
  }

  private void noteExecutor(String appId, Tracked app) {
    switch (app.phase) {
      case STARTING:
        moveToRunning(appId, app, "first executor allocated "
            + (nowMillis() - app.startingSinceMillis) + " ms after its AM");
        break;
      case ACCEPTED:
        // Only seen for applications recovered after a ResourceManager restart, which come back
        // with their containers but without allocation events.
        moveToRunning(appId, app, "already holds executors (recovered)");
        break;
      default:
        break;
    }
  }

  private void applyTimeout(String appId, Tracked app) {
    if (app.phase == StartPhase.STARTING) {
      long waited = nowMillis() - app.startingSinceMillis;
      if (waited >= settings.startingTimeout().toMillis()) {
        moveToRunning(appId, app, "no executor after " + waited + " ms, starting-timeout "
            + settings.startingTimeout().toMillis() + " ms elapsed");
      }
    }
  }

  private void moveToRunning(String appId, Tracked app, String reason) {
    LOG.info("{}: {} -> Running ({})", appId, app.phase, reason);
    app.phase = StartPhase.RUNNING;
  }

  /** Mutable per-application record; only touched under the gate's monitor. */
  private static final class Tracked {
    final long acceptedSinceMillis;
    StartPhase phase = StartPhase.ACCEPTED;
    long startingSinceMillis;

    Tracked(long acceptedSinceMillis) {
      this.acceptedSinceMillis = acceptedSinceMillis;
    }
  }
}
