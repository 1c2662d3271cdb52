package dev.tide.driver;

import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.RpcChannels;
import dev.tide.rpc.RpcMessage;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.protocol.MapOutputId;
import dev.tide.shuffle.protocol.MigrateReply;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The driver's side of map-output migration: the {@link ShuffleMigrator} and what it works on.
 * Its map-output table is the running job's scheduler, and every executor hears of each move
 * (MAP_OUTPUTS_MOVED: a reducer that has not fetched that output yet fetches it from its new
 * place). Its transport sends a node's {@code tide_shuffle} service a MIGRATE_REQUEST
 * authenticated with the application's secret, from a worker thread of its own, and waits as long
 * as the copy may take and {@link #REPLY_GRACE} more.
 */
final class MapOutputMigration implements AutoCloseable {
  /** How much longer than the copy's own timeout a MIGRATE_REQUEST waits for its reply. */
  static final Duration REPLY_GRACE = Duration.ofMinutes(2);

  private final String appId;
  private final byte[] secret;
  private final boolean encrypt;
  private final ExecutorService worker;
  private final ShuffleMigrator migrator;

  /**
   * @param owner the driver's event loop, where the migrator's state and the table are used
   * @param scheduler the running job's scheduler; null before the job starts
   * @param executorChannels the channels of the registered executors
   * @param encrypt whether the shuffle connections are encrypted (tide.network.crypto.enabled)
   */
  MapOutputMigration(String appId, byte[] secret, boolean encrypt, Executor owner,
      Supplier<JobScheduler> scheduler, Supplier<Collection<Channel>> executorChannels,
      LongSupplier clock, ShuffleMigrator.Events events) {
    this.appId = appId;
    this.secret = secret.clone();
    this.encrypt = encrypt;
    this.worker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "tide-driver-migrate");
      t.setDaemon(true);
      return t;
    });
    this.migrator = new ShuffleMigrator(owner, () -> {
      JobScheduler s = scheduler.get();
      return s == null ? null : table(s, executorChannels);
    }, this::migrate, worker, clock, events);
  }

  ShuffleMigrator migrator() {
    return migrator;
  }

  /** {@code scheduler}'s map outputs; a move is sent to every executor once it is made. */
  static ShuffleMigrator.MapOutputTable table(JobScheduler scheduler,
      Supplier<Collection<Channel>> executorChannels) {
    return new ShuffleMigrator.MapOutputTable() {
      @Override
      public List<JobScheduler.ServedOutput> mapOutputsOn(String host) {
        return scheduler.mapOutputsOn(host);
      }

      @Override
      public Map<String, Integer> liveShuffleServices() {
        return scheduler.liveShuffleServices();
      }

      @Override
      public boolean moveMapOutput(int shuffleId, int mapId, String fromHost, int fromPort,
          String toHost, int toPort) {
        if (!scheduler.moveMapOutput(shuffleId, mapId, fromHost, fromPort, toHost, toPort)) {
          return false;
        }
        RpcMessage moved = new RpcMessage.MapOutputsMoved(shuffleId,
            List.of(new MapLocation(mapId, toHost, toPort)));
        for (Channel channel : executorChannels.get()) {
          RpcChannels.send(channel, moved);
        }
        return true;
      }
    };
  }

  /** One MIGRATE_REQUEST to the service at host:port (on the worker thread). */
  private MigrateReply migrate(String host, int port, String targetHost, int targetPort,
      long timeoutMillis, List<MapOutputId> maps) throws Exception {
    Duration wait = Duration.ofMillis(timeoutMillis).plus(REPLY_GRACE);
    try (ShuffleClient client = new ShuffleClient(appId, secret,
        ShuffleClientConfig.DEFAULTS.withReadTimeout(wait).withEncryption(encrypt))) {
      return client.migrate(host, port, targetHost, targetPort, timeoutMillis, maps);
    }
  }

  /** Stops the worker thread (the application ends). */
  @Override
  public void close() {
    worker.shutdownNow();
  }
}
