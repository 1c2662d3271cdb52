package dev.tide.bench.shuffle.tide;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.ShuffleClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Load generator for tide_shuffle: one {@link ShuffleClient} (one authenticated connection);
 * each request is one FETCH_REQUEST naming the blocks of many maps for one reduce. The same client
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
        List<byte[]> blocks = client.fetch("127.0.0.1", port, ids);
        long bytes = 0;
        for (int i = 0; i < blocks.size(); i++) {
          byte[] b = blocks.get(i);
          ByteBuffer head = ByteBuffer.wrap(b);
          w.check(mapStart + i, reduce, b.length, head.getInt(0), head.getInt(4));
          bytes += b.length;
        }
        return bytes;
      }, a);
    }
  }
}
