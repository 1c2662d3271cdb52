package dev.tide.bench.shuffle.tide;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.BlockReader;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleClientConfig;
import dev.tide.shuffle.protocol.FetchReply;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Load generator for tide_shuffle: one {@link ShuffleClient} (one authenticated connection);
 * each request is one FETCH_REQUEST naming the blocks of many maps for one reduce, read with a
 * {@link BlockReader} straight from the network buffers. The same client
 * (on NIO) for all Tide servers, {@code tide}, {@code tide-epoll} and {@code tide-nocrc}.
 *
 * <p>With {@code checksums=on} (servers {@code tide}, {@code tide-epoll}) it verifies every
 * block as Tide's reducer does ({@code ShuffleSegments}): a {@link CRC32C} per block, updated on
 * the client's I/O thread with each piece of the block as it arrives, compared with the checksum
 * in the FETCH_REPLY once the reply is complete; a block without a checksum fails the run (the
 * data set would not be the checksummed one). With {@code checksums=off} ({@code tide-nocrc};
 * {@code tide.executor.shuffle.checksum.enabled=false}) nothing is verified.
 */
public final class TideClient {
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = LoadGenerator.args(argv);
    int port = Integer.parseInt(a.get("port"));
    Workload w = Workload.forBlockSize(Integer.parseInt(a.get("block")), Integer.MAX_VALUE);
    boolean verify = a.getOrDefault("checksums", "on").equals("on");
    // crypto=on (server tide-crypto): tide.network.crypto.enabled=true, AES-GCM records.
    boolean crypto = a.getOrDefault("crypto", "off").equals("on");
    try (ShuffleClient client = new ShuffleClient(DataSets.APP_ID, DataSets.SECRET,
        ShuffleClientConfig.DEFAULTS.withEncryption(crypto))) {
      LoadGenerator.run(a.getOrDefault("server", "tide"), w, (reduce, mapStart, mapEnd) -> {
        List<BlockId> ids = new ArrayList<>(mapEnd - mapStart);
        for (int m = mapStart; m < mapEnd; m++) {
          ids.add(BlockId.of(0, m, reduce));
        }
        BlockCheck check = new BlockCheck(ids.size(), verify);
        client.fetch("127.0.0.1", port, ids, check);
        long bytes = 0;
        for (int i = 0; i < ids.size(); i++) {
          w.check(mapStart + i, reduce, check.lengths[i], check.headMap(i), check.headReduce(i));
          if (verify) {
            check.verify(i, ids.get(i));
          }
          bytes += check.lengths[i];
        }
        return bytes;
      }, a);
    }
  }

  /**
   * Reads one reply as it streams in: copies out only the 8-byte stamp at the start of each
   * block (to check it is the block asked for) and, when verifying, feeds every byte to the
   * block's CRC32C. Called on the client's I/O thread; read by the requesting thread after
   * {@link ShuffleClient#fetch} returns.
   */
  private static final class BlockCheck implements BlockReader {
    private final boolean verify;
    private final byte[][] heads;
    private final int[] headFilled;
    private long[] lengths;
    private long[] expected;
    private CRC32C[] crcs;

    BlockCheck(int blocks, boolean verify) {
      this.verify = verify;
      this.heads = new byte[blocks][8];
      this.headFilled = new int[blocks];
    }

    @Override
    public void start(long[] blockLengths, long[] blockChecksums) {
      lengths = blockLengths;
      if (verify) {
        expected = blockChecksums;
        crcs = new CRC32C[blockLengths.length];
        for (int i = 0; i < crcs.length; i++) {
          crcs[i] = new CRC32C();
        }
      }
    }

    @Override
    public void read(int index, ByteBuffer data) {
      if (verify) {
        crcs[index].update(data.duplicate());
      }
      int n = Math.min(8 - headFilled[index], data.remaining());
      if (n > 0) {
        data.get(heads[index], headFilled[index], n);
        headFilled[index] += n;
      }
    }

    int headMap(int i) {
      return ByteBuffer.wrap(heads[i]).getInt(0);
    }

    int headReduce(int i) {
      return ByteBuffer.wrap(heads[i]).getInt(4);
    }

    void verify(int i, BlockId block) {
      if (expected[i] == FetchReply.NO_CHECKSUM) {
        throw new IllegalStateException(block + " came without a checksum: the server's data"
            + " set has no segment checksums");
      }
      if (crcs[i].getValue() != expected[i]) {
        throw new IllegalStateException(block + " fails its CRC32C: read 0x"
            + Long.toHexString(crcs[i].getValue()) + ", written 0x"
            + Long.toHexString(expected[i]));
      }
    }
  }
}
