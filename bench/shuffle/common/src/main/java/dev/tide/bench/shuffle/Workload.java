package dev.tide.bench.shuffle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * The logical shuffle every server serves: shuffle 0, {@code maps} map outputs of {@code reduces}
 * segments of exactly {@code blockSize} bytes each. A block starts with its own (map, reduce) as
 * two big-endian ints so clients can check they got the right bytes; the rest is a fixed random
 * pattern. Clients fetch, for each reduce in turn, the blocks of {@code mapsPerRequest} maps per
 * request (the last request of a reduce may name fewer).
 */
public record Workload(int blockSize, int maps, int reduces, int mapsPerRequest) {
  /** Largest request payload the Tide and Spark clients ask for at once (Spark: maxBytesInFlight/5 ~ 9.6 MB). */
  public static final long MAX_REQUEST_BYTES = 8L << 20;
  /** Hadoop's reducer fetches at most 20 map outputs per GET (ShuffleSchedulerImpl.MAX_MAPS_AT_ONCE). */
  public static final int HADOOP_MAX_MAPS_PER_REQUEST = 20;

  /** The data set used for a block size: 256 MiB at 4 KiB, 512 MiB at 64 KiB and 1 MiB. */
  public static Workload forBlockSize(int blockSize, int maxMapsPerRequest) {
    int maps;
    int reduces;
    if (blockSize <= 4096) {
      maps = 256;
      reduces = 256;
    } else if (blockSize <= 65536) {
      maps = 64;
      reduces = 128;
    } else {
      maps = 16;
      reduces = 32;
    }
    int perRequest = (int) Math.max(1, Math.min(maps, MAX_REQUEST_BYTES / blockSize));
    perRequest = Math.min(perRequest, maxMapsPerRequest);
    return new Workload(blockSize, maps, reduces, perRequest);
  }

  public long totalBytes() {
    return (long) blockSize * maps * reduces;
  }

  public int requestsPerReduce() {
    return (maps + mapsPerRequest - 1) / mapsPerRequest;
  }

  /** Request number i (cycling over the whole shuffle): reduce, first map, end map. */
  public int[] request(long i) {
    int perReduce = requestsPerReduce();
    long cycle = i % ((long) perReduce * reduces);
    int reduce = (int) (cycle / perReduce);
    int start = (int) (cycle % perReduce) * mapsPerRequest;
    return new int[] {reduce, start, Math.min(maps, start + mapsPerRequest)};
  }

  /**
   * One map's data file as written: the length and the CRC32C (what a Tide map task records in
   * its index) of each segment, in reduce order.
   */
  public record MapData(long[] lengths, int[] checksums) {}

  /** Writes one map's data file (segments in reduce order). */
  public MapData writeMapData(Path file, int map) throws IOException {
    Files.createDirectories(file.getParent());
    byte[] pattern = new byte[blockSize];
    new Random(42).nextBytes(pattern);
    ByteBuffer block = ByteBuffer.wrap(pattern);
    long[] lengths = new long[reduces];
    int[] checksums = new int[reduces];
    CRC32C crc = new CRC32C();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      for (int r = 0; r < reduces; r++) {
        block.clear();
        block.putInt(0, map).putInt(4, r);
        crc.reset();
        crc.update(block.duplicate());
        while (block.hasRemaining()) {
          ch.write(block);
        }
        lengths[r] = blockSize;
        checksums[r] = (int) crc.getValue();
      }
    }
    return new MapData(lengths, checksums);
  }

  /** Throws unless the block starts with (map, reduce) and has blockSize bytes. */
  public void check(int map, int reduce, long length, int headMap, int headReduce) {
    if (length != blockSize || headMap != map || headReduce != reduce) {
      throw new IllegalStateException("wrong block for map " + map + " reduce " + reduce
          + ": " + length + " bytes starting with (" + headMap + ", " + headReduce + ")");
    }
  }
}
