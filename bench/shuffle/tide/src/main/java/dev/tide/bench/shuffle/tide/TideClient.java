package dev.tide.bench.shuffle.tide;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.BlockReader;
import dev.tide.shuffle.client.ShuffleClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Load generator for tide_shuffle: one {@link ShuffleClient} (one authenticated connection);
 * each request is one FETCH_REQUEST naming the blocks of many maps for one reduce, read with a
 * {@link BlockReader} straight from the network buffers. The same client
 * (on NIO) for both Tide servers, {@code tide} and {@code tide-epoll}.
 */
public final class TideClient {
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = LoadGenerator.args(argv);
    int port = Integer.parseInt(a.get("port"));
    Workload w = Workload.forBlockSize(Integer.parseInt(a.get("block")), Integer.MAX_VALUE);
    try (ShuffleClient client = new ShuffleClient(DataSets.APP_ID, DataSets.SECRET)) {
      LoadGenerator.run(a.getOrDefault("server", "tide"), w, (reduce, mapStart, mapEnd) -> {
        List<BlockId> ids = new ArrayList<>(mapEnd - mapStart);
        for (int m = mapStart; m < mapEnd; m++) {
          ids.add(BlockId.of(0, m, reduce));
        }
        // Streamed: each block's bytes are read from the client's network buffers as they
        // arrive (BlockReader), like Spark's client handing out its Netty buffers; only the
        // 8-byte stamp at the start of each block is copied out, to check it.
        long[][] lengths = new long[1][];
        byte[][] heads = new byte[ids.size()][8];
        int[] headFilled = new int[ids.size()];
        client.fetch("127.0.0.1", port, ids, new BlockReader() {
          @Override
          public void start(long[] blockLengths) {
            lengths[0] = blockLengths;
          }

          @Override
          public void read(int index, ByteBuffer data) {
            int n = Math.min(8 - headFilled[index], data.remaining());
            if (n > 0) {
              data.get(heads[index], headFilled[index], n);
              headFilled[index] += n;
            }
          }
        });
        long bytes = 0;
        for (int i = 0; i < ids.size(); i++) {
          ByteBuffer head = ByteBuffer.wrap(heads[i]);
          w.check(mapStart + i, reduce, (int) lengths[0][i], head.getInt(0), head.getInt(4));
          bytes += lengths[0][i];
        }
        return bytes;
      }, a);
    }
  }
}
