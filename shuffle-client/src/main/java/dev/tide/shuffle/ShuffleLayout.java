package dev.tide.shuffle;

import java.nio.file.Path;
import java.util.List;

/**
 * Where map output lives on a NodeManager. Both the executor that writes it and the
 * {@code tide_shuffle} service that serves it derive every path from (local dir, user,
 * application, shuffle id, map id) alone; no path is ever built from a client-supplied string.
 *
 * <pre>
 *   &lt;nm-local-dir&gt;/usercache/&lt;user&gt;/appcache/&lt;appId&gt;/tide-shuffle/&lt;shuffleId&gt;/&lt;mapId&gt;.data
 *   &lt;nm-local-dir&gt;/usercache/&lt;user&gt;/appcache/&lt;appId&gt;/tide-shuffle/&lt;shuffleId&gt;/&lt;mapId&gt;.index
 * </pre>
 * The application directory ({@code .../appcache/<appId>}) is what YARN gives a container in
 * {@code LOCAL_DIRS}; it outlives the container and is deleted when the application finishes.
 * Stateless and thread-safe.
 */
public final class ShuffleLayout {
  /** The directory under an application dir that holds all of Tide's map output. */
  public static final String SHUFFLE_DIR = "tide-shuffle";

  private ShuffleLayout() {}

  /**
   * The application's directory under one NodeManager local dir.
   *
   * @throws IllegalArgumentException if user or appId could escape the directory
   */
  public static Path appLocalDir(Path nmLocalDir, String user, String appId) {
    return nmLocalDir.resolve("usercache")
        .resolve(ApplicationIdFormat.requireValidUser(user))
        .resolve("appcache")
        .resolve(ApplicationIdFormat.requireValidAppId(appId));
  }

  /**
   * The application dir (out of a container's LOCAL_DIRS) that holds this map output. The
   * choice depends only on the ids and the list, so every attempt of a map picks the same dir.
   */
  public static Path chooseAppDir(List<Path> appLocalDirs, int shuffleId, int mapId) {
    if (appLocalDirs.isEmpty()) {
      throw new IllegalArgumentException("no application local dirs to choose from");
    }
    return appLocalDirs.get(dirIndex(shuffleId, mapId, appLocalDirs.size()));
  }

  /** Which of {@code dirCount} application dirs {@link #chooseAppDir} picks for a map output. */
  public static int dirIndex(int shuffleId, int mapId, int dirCount) {
    return Math.floorMod(mix(shuffleId, mapId), dirCount);
  }

  /** The directory of one shuffle's map output. */
  public static Path shuffleDir(Path appLocalDir, int shuffleId) {
    requireNonNegative(shuffleId, "shuffleId");
    return appLocalDir.resolve(SHUFFLE_DIR).resolve(Integer.toString(shuffleId));
  }

  public static Path dataFile(Path appLocalDir, int shuffleId, int mapId) {
    requireNonNegative(mapId, "mapId");
    return shuffleDir(appLocalDir, shuffleId).resolve(mapId + ".data");
  }

  public static Path indexFile(Path appLocalDir, int shuffleId, int mapId) {
    requireNonNegative(mapId, "mapId");
    return shuffleDir(appLocalDir, shuffleId).resolve(mapId + ".index");
  }

  private static void requireNonNegative(int value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be >= 0, got " + value);
    }
  }

  // A 32-bit finalizer (murmur3 fmix) so consecutive map ids spread over the dirs.
  private static int mix(int shuffleId, int mapId) {
    int h = shuffleId * 0x9E3779B1 + mapId;
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    h *= 0xC2B2AE35;
    h ^= h >>> 16;
    return h;
  }
}
