package dev.tide.bench.shuffle.spark;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.network.buffer.ManagedBuffer;
import org.apache.spark.network.shuffle.BlockFetchingListener;
import org.apache.spark.network.shuffle.ExternalBlockStoreClient;

/**
 * Load generator for Spark's external shuffle service: one {@link ExternalBlockStoreClient}
 * (authenticated, one connection per peer as by default); each request is one
 * {@code fetchBlocks} call for the blocks of many maps for one reduce (a FetchShuffleBlocks
 * message, then one chunk per block), as a reducer's ShuffleBlockFetcherIterator issues them.
 * Blocks are checked in the callback while Spark still holds the buffer, then released by Spark.
 * Compiled against Spark 4.1 (module spark) and, unchanged, against Spark 3.5 (module spark35).
 */
public final class SparkClient {
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = LoadGenerator.args(argv);
    int port = Integer.parseInt(a.get("port"));
    Workload w = Workload.forBlockSize(Integer.parseInt(a.get("block")), Integer.MAX_VALUE);
    ExternalBlockStoreClient client = new ExternalBlockStoreClient(
        SparkConfs.conf(SparkConfs.crypto(a)),
        SparkConfs.SECRETS, true, 10_000);
    client.init(DataSets.APP_ID);
    try {
      LoadGenerator.run(a.getOrDefault("server", "spark"), w, (reduce, mapStart, mapEnd) -> {
        String[] ids = new String[mapEnd - mapStart];
        for (int m = mapStart; m < mapEnd; m++) {
          ids[m - mapStart] = "shuffle_0_" + m + "_" + reduce;
        }
        CountDownLatch done = new CountDownLatch(ids.length);
        AtomicLong bytes = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        client.fetchBlocks("127.0.0.1", port, SparkServer.EXEC_ID, ids,
            new BlockFetchingListener() {
              @Override
              public void onBlockFetchSuccess(String blockId, ManagedBuffer data) {
                try {
                  int map = Integer.parseInt(blockId.substring(10, blockId.lastIndexOf('_')));
                  ByteBuffer b = data.nioByteBuffer();
                  w.check(map, reduce, data.size(), b.getInt(b.position()),
                      b.getInt(b.position() + 4));
                  bytes.addAndGet(data.size());
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
                done.countDown();
              }

              @Override
              public void onBlockFetchFailure(String blockId, Throwable exception) {
                failure.compareAndSet(null, exception);
                done.countDown();
              }
            }, null);
        if (!done.await(120, TimeUnit.SECONDS)) {
          throw new IllegalStateException("fetch of reduce " + reduce + " timed out");
        }
        if (failure.get() != null) {
          throw new IllegalStateException("fetch of reduce " + reduce + " failed", failure.get());
        }
        return bytes.get();
      }, a);
    } finally {
      client.close();
    }
  }
}
