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
 */
public final class ShuffleLayout {
  // TODO(shuffle-service helper): implement; keep these signatures.
  private ShuffleLayout() {}

  /** The application's directory under one NodeManager local dir. */
  public static Path appLocalDir(Path nmLocalDir, String user, String appId) {
    throw new UnsupportedOperationException();
  }

  /** The application dir (out of a container's LOCAL_DIRS) that holds this map output. */
  public static Path chooseAppDir(List<Path> appLocalDirs, int shuffleId, int mapId) {
    throw new UnsupportedOperationException();
  }

  public static Path dataFile(Path appLocalDir, int shuffleId, int mapId) {
    throw new UnsupportedOperationException();
  }

  public static Path indexFile(Path appLocalDir, int shuffleId, int mapId) {
    throw new UnsupportedOperationException();
  }
}
