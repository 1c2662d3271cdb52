package dev.tide.executor;

import dev.tide.rpc.MapLocation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where map outputs went after the executor's tasks were described: the driver sends
 * {@code MAP_OUTPUTS_MOVED} when a leaving node's outputs were copied to another node's service,
 * and a reduce that has not fetched yet fetches them from there instead of from the node that
 * leaves. Written by the RPC thread, read by task threads.
 */
final class MovedMapOutputs {
  private final Map<Long, MapLocation> moved = new ConcurrentHashMap<>();

  /** The driver moved these outputs of {@code shuffleId}. */
  void moved(int shuffleId, List<MapLocation> locations) {
    for (MapLocation l : locations) {
      moved.put(key(shuffleId, l.mapId()), l);
    }
  }

  /** Where to fetch {@code location}'s output of {@code shuffleId} now. */
  MapLocation where(int shuffleId, MapLocation location) {
    MapLocation now = moved.get(key(shuffleId, location.mapId()));
    return now == null ? location : now;
  }

  private static long key(int shuffleId, int mapId) {
    return ((long) shuffleId << 32) | (mapId & 0xffffffffL);
  }
}
