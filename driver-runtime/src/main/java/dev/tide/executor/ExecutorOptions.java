package dev.tide.executor;

import static dev.tide.conf.ConfigOption.booleanOption;
import static dev.tide.conf.ConfigOption.bytesOption;
import static dev.tide.conf.ConfigOption.intOption;

import dev.tide.conf.ConfigOption;
import java.util.List;

/**
 * The settings only the executors read (the task's sort buffer, block cache and shuffle
 * reading); those they share with the driver are in {@link dev.tide.app.AppOptions}.
 * {@code TideOptions.all()} lists these too, for conf/tide-site.xml and start-up validation.
 */
public final class ExecutorOptions {
  private ExecutorOptions() {}

  public static final ConfigOption<Long> SORT_BUFFER_BYTES =
      bytesOption("tide.executor.shuffle.sort.buffer", "0", 0, "Memory of a map task's sort"
          + " buffer (\"64m\"); when it fills, its records are sorted and spilled to local disk. 0"
          + " means a fifth of the executor's heap, divided among its task slots.")
          .withDeprecatedKeys("tide.shuffle.sort.buffer");
  public static final ConfigOption<Long> CACHE_MEMORY =
      bytesOption("tide.cache.memory", "0", 0, "Memory of an executor for the blocks of cached"
          + " datasets (\"128m\"); a block that does not fit is not cached and is read again"
          + " from its split when needed. 0 means a quarter of the executor's heap.");
  public static final ConfigOption<Boolean> SHUFFLE_CHECKSUM_ENABLED =
      booleanOption("tide.executor.shuffle.checksum.enabled", true, "Store a CRC32C of every map"
          + " output segment in its index and verify each fetched segment against it, so a byte"
          + " damaged on a disk or on the way reruns its map instead of reaching the output."
          + " Turn off only to measure what it costs.")
          .withDeprecatedKeys("tide.shuffle.checksum.enabled");
  public static final ConfigOption<Long> MAX_BYTES_IN_FLIGHT =
      bytesOption("tide.executor.shuffle.maxBytesInFlight", "48m", 1, "Bytes of fetched shuffle"
          + " segments a reduce task keeps in memory (at most a fifth of the executor's heap per"
          + " task slot); the rest is written to local disk and merged from there.")
          .withDeprecatedKeys("tide.shuffle.maxBytesInFlight");
  public static final ConfigOption<Integer> SHUFFLE_CONNECT_RETRIES =
      intOption("tide.executor.shuffle.connectRetries", 3, 0, "Times a reduce task tries again to"
          + " connect to a NodeManager's tide_shuffle that refused or dropped its connection"
          + " (after 200 ms, then doubling, at most 10 s apart) before it counts that node's map"
          + " outputs as lost and the driver reruns those maps. With NodeManager recovery, raise"
          + " it so that the retries outlast a NodeManager restart and no map is rerun for one:"
          + " 6 retries wait about 13 s in all, 8 about 33 s.")
          .withDeprecatedKeys("tide.shuffle.connectRetries");

  public static List<ConfigOption<?>> all() {
    return List.of(SORT_BUFFER_BYTES, CACHE_MEMORY, SHUFFLE_CHECKSUM_ENABLED, MAX_BYTES_IN_FLIGHT,
        SHUFFLE_CONNECT_RETRIES);
  }
}
