package dev.tide.shuffle.protocol;

/** One map task's committed output of an application: (shuffle id, map id), both {@code >= 0}. */
public record MapOutputId(int shuffleId, int mapId) {
  public MapOutputId {
    if (shuffleId < 0 || mapId < 0) {
      throw new IllegalArgumentException("invalid map output " + shuffleId + "/" + mapId
          + ": ids must be >= 0");
    }
  }

  @Override
  public String toString() {
    return shuffleId + "/" + mapId;
  }
}
