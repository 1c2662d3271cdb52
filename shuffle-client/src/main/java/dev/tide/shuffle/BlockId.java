package dev.tide.shuffle;

/**
 * Names the bytes one map task wrote for a range of reduce partitions: the segments
 * {@code [reduceStart, reduceEnd)} of map output {@code mapId} of shuffle {@code shuffleId}.
 */
public record BlockId(int shuffleId, int mapId, int reduceStart, int reduceEnd) {
  public BlockId {
    if (shuffleId < 0 || mapId < 0 || reduceStart < 0 || reduceEnd <= reduceStart) {
      throw new IllegalArgumentException("invalid block " + shuffleId + "/" + mapId + "/["
          + reduceStart + "," + reduceEnd + ")");
    }
  }

  public static BlockId of(int shuffleId, int mapId, int reduce) {
    return new BlockId(shuffleId, mapId, reduce, reduce + 1);
  }
}
