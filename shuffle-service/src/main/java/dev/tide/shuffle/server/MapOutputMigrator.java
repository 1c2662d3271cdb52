package dev.tide.shuffle.server;

import dev.tide.network.LogSafe;
import dev.tide.shuffle.MapOutputIndex;
import dev.tide.shuffle.client.PushExchange;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.protocol.MapOutputId;
import dev.tide.shuffle.protocol.MigrateReply;
import dev.tide.shuffle.protocol.MigrateRequest;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending side of a migration: carries out MIGRATE_REQUESTs by pushing each named map
 * output of the request's application to the target service (PUSH_OPEN/PUSH_DATA over a
 * {@link ShuffleClient} connection authenticated with the application's secret, so the target
 * only accepts it if it knows the application), paced by one {@link MigrationThrottle} for the
 * whole service. Requests run one at a time on the migrator's own thread, at most
 * {@link #MAX_QUEUED} waiting (more are answered BUSY); a map output is only read from the files
 * the registry's user and the ids resolve to, its index checked before it is sent. A copy that
 * fails (missing output, target refuses or is unreachable, the request's time is up) is named in
 * the reply's failures and the next one is tried. Thread-safe.
 */
final class MapOutputMigrator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MapOutputMigrator.class);
  /** MIGRATE_REQUESTs waiting for the migrator's thread before BUSY is answered. */
  static final int MAX_QUEUED = 16;
  /** Largest PUSH_DATA piece (kept under the receiver's request frame limit). */
  static final int MAX_PIECE_BYTES = 256 << 10;
  /** Room in a PUSH_OPEN frame besides the index: header, ids, application id. */
  private static final int PUSH_OPEN_OVERHEAD = 5 + 8 + 2 + 256 + 4 + 4 + 8 + 4;

  private final MapOutputResolver resolver;
  private final ServerStats stats;
  private final PushExchange.Throttle throttle;
  private final Function<RegisteredApp, ShuffleClient> clients;
  private final LongSupplier nanoClock;
  private final int pieceBytes;
  private final int maxIndexBytes;
  private final ThreadPoolExecutor executor;

  /**
   * @param clients makes the client a request's copies go through, for its application
   * @param maxRequestFrameBytes the services' request frame limit: pieces and indexes fit it
   */
  MapOutputMigrator(MapOutputResolver resolver, ServerStats stats, PushExchange.Throttle throttle,
      Function<RegisteredApp, ShuffleClient> clients, LongSupplier nanoClock,
      int maxRequestFrameBytes) {
    this.resolver = resolver;
    this.stats = stats;
    this.throttle = throttle;
    this.clients = clients;
    this.nanoClock = nanoClock;
    this.pieceBytes = Math.max(1, Math.min(MAX_PIECE_BYTES, maxRequestFrameBytes - 64));
    this.maxIndexBytes = Math.max(0, maxRequestFrameBytes - PUSH_OPEN_OVERHEAD);
    this.executor = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(MAX_QUEUED), new DefaultThreadFactory("tide-shuffle-migrate",
        true), new ThreadPoolExecutor.AbortPolicy());
  }

  /**
   * Queues the request; {@code answer} gets its reply on the migrator's thread.
   *
   * @return why it cannot be taken now (to be answered BUSY), or null once queued
   */
  String submit(RegisteredApp app, MigrateRequest request, Consumer<MigrateReply> answer) {
    try {
      executor.execute(() -> answer.accept(run(app, request)));
      return null;
    } catch (RejectedExecutionException e) {
      return "the service is migrating already and " + MAX_QUEUED + " more migrations wait";
    }
  }

  /** Copies the request's map outputs in order; what could not be copied is named. */
  MigrateReply run(RegisteredApp app, MigrateRequest request) {
    long deadline = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(request.timeoutMillis());
    List<MapOutputId> copied = new ArrayList<>();
    StringJoiner failures = new StringJoiner("; ");
    long bytes = 0;
    String target = request.targetHost() + ":" + request.targetPort();
    LOG.info("copying {} map outputs of {} to {} (within {} ms)", request.maps().size(),
        app.appId(), LogSafe.text(target), request.timeoutMillis());
    String targetGone = null;
    try (ShuffleClient client = clients.apply(app)) {
      for (MapOutputId map : request.maps()) {
        if (targetGone != null) {
          stats.migrationOutFailed();
          failures.add(map + ": not tried, " + targetGone);
          continue;
        }
        if (nanoClock.getAsLong() - deadline >= 0) {
          stats.migrationOutFailed();
          failures.add(map + ": not started within " + request.timeoutMillis() + " ms");
          continue;
        }
        try {
          long n = copy(client, app, map, request.targetHost(), request.targetPort());
          stats.migratedOut(n);
          copied.add(map);
          bytes += n;
        } catch (MigrationFailure e) {
          stats.migrationOutFailed();
          failures.add(map + ": " + e.getMessage());
          if (e.targetGone) {
            targetGone = "the target " + (e.reason == ShuffleFetchException.Reason.AUTH
                ? "refuses the application" : "is unreachable") + " (" + e.reason + ")";
          }
        }
      }
    }
    LOG.info("copied {} of {} map outputs of {} ({} bytes) to {}{}", copied.size(),
        request.maps().size(), app.appId(), bytes, LogSafe.text(target),
        failures.length() == 0 ? "" : "; not copied: " + LogSafe.text(failures.toString(), 500));
    return new MigrateReply(request.requestId(), bytes, copied, failures.toString());
  }

  /** Pushes one committed map output; returns its data bytes once the target confirmed it. */
  private long copy(ShuffleClient client, RegisteredApp app, MapOutputId map, String host,
      int port) throws MigrationFailure {
    MapOutputResolver.Located files = resolver.locateCommitted(app, map.shuffleId(), map.mapId());
    if (files == null) {
      throw new MigrationFailure("no committed map output on this node");
    }
    try (FileChannel data = FileChannel.open(files.data(), StandardOpenOption.READ)) {
      long indexSize = Files.size(files.index());
      if (indexSize > maxIndexBytes) {
        throw new MigrationFailure("index " + files.index() + " of " + indexSize
            + " bytes does not fit a request frame");
      }
      byte[] index = Files.readAllBytes(files.index());
      MapOutputIndex parsed = MapOutputIndex.decode(index, files.index().toString());
      if (data.size() != parsed.dataLength()) {
        throw new MigrationFailure("data file " + files.data() + " holds " + data.size()
            + " bytes, its index accounts for " + parsed.dataLength());
      }
      client.push(host, port, map.shuffleId(), map.mapId(), parsed.dataLength(), index,
          buf -> readFully(data, buf), pieceBytes, throttle);
      return parsed.dataLength();
    } catch (ShuffleFetchException e) {
      String detail = e.detail().startsWith(e.reason().name()) ? e.detail()
          : e.reason() + ": " + e.detail();
      throw new MigrationFailure("the target refused or failed: " + detail, e.reason());
    } catch (IOException e) {
      throw new MigrationFailure("cannot read it: " + e.getMessage());
    }
  }

  private static int readFully(FileChannel ch, byte[] buf) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(buf);
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        break;
      }
    }
    return b.position() == 0 ? -1 : b.position();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  /**
   * Why one map output was not copied; {@link #targetGone} when the target cannot take any
   * (unreachable after the client's retries, or it refuses the application: unknown there, or
   * no local dir of it), so the
   * request's other outputs are not tried.
   */
  private static final class MigrationFailure extends Exception {
    final ShuffleFetchException.Reason reason;
    final boolean targetGone;

    MigrationFailure(String message) {
      this(message, null);
    }

    MigrationFailure(String message, ShuffleFetchException.Reason reason) {
      super(message, null, false, false);
      this.reason = reason;
      this.targetGone = reason == ShuffleFetchException.Reason.CONNECT
          || reason == ShuffleFetchException.Reason.AUTH
          || reason == ShuffleFetchException.Reason.TIMEOUT;
    }
  }
}
