package dev.tide.driver;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The driver's record of its executors: those the cluster side launched (and where their node's
 * shuffle service listens), those registered over the RPC (and their channels), when each was
 * last heard from, and which have gone. An executor is ready to get tasks once it is both
 * launched and registered, in either order.
 *
 * <p>Threading: owned by the driver's event loop; only {@link #isRegistered} and {@link #isGone}
 * are safe from any thread (the AM's launch watchdog and allocator read them).
 */
final class ExecutorRegistry {
  /** Owned by the event loop: when each registered executor was last heard from. */
  private final ExecutorHeartbeats heartbeats;
  private final Map<String, Channel> registered = new HashMap<>();
  private final Map<Channel, String> channelToExecutor = new HashMap<>();
  private final Map<String, InetSocketAddress> launched = new HashMap<>();
  /** Executor -> when its container was allocated, until it is added. */
  private final Map<String, Long> allocatedAtMillis = new HashMap<>();
  /** Executors added or removed so far: a batch during which it changed is not measured. */
  private long executorChanges;
  /** Every executor id that ever registered; read by the AM's launch watchdog. */
  private final Set<String> everRegistered = ConcurrentHashMap.newKeySet();
  /** Every executor id that has gone; written by the event loop, read by the AM's allocator. */
  private final Set<String> removed = ConcurrentHashMap.newKeySet();
  /** Executors the driver asked to leave, and why, until they have gone. */
  private final Map<String, String> removalReasons = new HashMap<>();

  ExecutorRegistry(ExecutorHeartbeats heartbeats) {
    this.heartbeats = heartbeats;
  }

  /**
   * The executor registered on {@code channel}, now heard from at {@code nowMillis}; null when
   * none is (not registered yet, or already removed).
   */
  String heardFrom(Channel channel, long nowMillis) {
    String from = channelToExecutor.get(channel);
    if (from != null) {
      heartbeats.heard(from, nowMillis);
    }
    return from;
  }

  /** The cluster side launched {@code executorId}, its container allocated at that time. */
  void launched(String executorId, String host, int shufflePort, long allocatedAtMillis) {
    launched.put(executorId, InetSocketAddress.createUnresolved(host, shufflePort));
    this.allocatedAtMillis.put(executorId, allocatedAtMillis);
  }

  /** Why a registration of {@code executorId} is refused (null: it may register). */
  String refusal(String executorId, boolean jobOver) {
    if (registered.containsKey(executorId) || removed.contains(executorId) || jobOver) {
      return "executor " + executorId
          + (jobOver ? ": the job is over" : " is already registered or was removed");
    }
    return null;
  }

  /** Records the registration of {@code executorId} over {@code channel}, from {@code host}. */
  void registered(String executorId, Channel channel, String host, long nowMillis) {
    registered.put(executorId, channel);
    everRegistered.add(executorId);
    channelToExecutor.put(channel, executorId);
    heartbeats.registered(executorId, host, nowMillis);
  }

  /**
   * Where the node of {@code executorId} serves shuffle output, once it is both launched and
   * registered; else null.
   */
  InetSocketAddress readyShuffleAddress(String executorId) {
    InetSocketAddress shuffle = launched.get(executorId);
    return shuffle == null || !registered.containsKey(executorId) ? null : shuffle;
  }

  /**
   * The executor was handed to the scheduler: counted as a change; returns when its container
   * was allocated (null when not known or already added).
   */
  Long added(String executorId) {
    executorChanges++;
    return allocatedAtMillis.remove(executorId);
  }

  /** The executor whose connection closed (forgotten on the channel), or null. */
  String channelClosed(Channel channel) {
    return channelToExecutor.remove(channel);
  }

  /** The driver asked {@code executorId} to leave, for {@code why}. */
  void removalRequested(String executorId, String why) {
    removalReasons.putIfAbsent(executorId, why);
  }

  /** Why the driver asked {@code executorId} to leave, or null if it did not. */
  String removalReason(String executorId) {
    return removalReasons.get(executorId);
  }

  /**
   * Forgets {@code executorId} and closes its connection; true the first time a launched or
   * registered executor goes (then counted as a change and in {@link #isGone}).
   */
  boolean remove(String executorId) {
    boolean known = registered.containsKey(executorId) || launched.containsKey(executorId);
    Channel channel = registered.remove(executorId);
    if (channel != null) {
      channelToExecutor.remove(channel);
      channel.close();
    }
    launched.remove(executorId);
    allocatedAtMillis.remove(executorId);
    removalReasons.remove(executorId);
    heartbeats.removed(executorId);
    if (known && removed.add(executorId)) {
      executorChanges++;
      return true;
    }
    return false;
  }

  /** Executors silent past the heartbeat timeout as of {@code nowMillis} (see ExecutorHeartbeats). */
  List<ExecutorHeartbeats.Silent> expire(long nowMillis) {
    return heartbeats.expire(nowMillis);
  }

  /** Why {@code silent} is lost, as its removal records it. */
  String reason(ExecutorHeartbeats.Silent silent) {
    return heartbeats.reason(silent);
  }

  /** The channel of a registered executor, or null. */
  Channel channel(String executorId) {
    return registered.get(executorId);
  }

  /** Launched executors (not yet gone) and their hosts. */
  Map<String, String> launchedHosts() {
    Map<String, String> hosts = new HashMap<>();
    launched.forEach((id, address) -> hosts.put(id, address.getHostString()));
    return hosts;
  }

  /** The ids of the executors registered now. */
  Collection<String> registeredIds() {
    return List.copyOf(registered.keySet());
  }

  /** The channels of the executors registered now. */
  Collection<Channel> channels() {
    return List.copyOf(registered.values());
  }

  /** Executors launched but not yet added (their containers allocated, still starting). */
  int starting() {
    return allocatedAtMillis.size();
  }

  /** Executors added or removed so far. */
  long changes() {
    return executorChanges;
  }

  /** True once {@code executorId} registered, also after it has gone. Safe from any thread. */
  boolean isRegistered(String executorId) {
    return everRegistered.contains(executorId);
  }

  /** True once a launched or registered executor has gone. Safe from any thread. */
  boolean isGone(String executorId) {
    return removed.contains(executorId);
  }
}
