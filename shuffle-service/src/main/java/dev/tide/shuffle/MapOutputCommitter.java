package dev.tide.shuffle;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Commits one map task attempt's output atomically: the data file is written by the caller to
 * a temporary path, then this class writes the index (R+1 big-endian longs: offsets of each
 * reduce partition's segment, starting at 0) and renames both into place. The first attempt to
 * commit wins; later attempts' temporary files are deleted and {@code false} is returned.
 */
public final class MapOutputCommitter {
  // TODO(shuffle-service helper): implement; keep these signatures.
  private MapOutputCommitter() {}

  /** A fresh temporary data file path for this attempt, in the directory of the final file. */
  public static Path tempDataFile(Path appLocalDir, int shuffleId, int mapId, long attemptId)
      throws IOException {
    throw new UnsupportedOperationException();
  }

  /**
   * @param partitionLengths bytes of each reduce partition's segment, in partition order, as
   *     written consecutively to {@code tempData}
   * @return true if this attempt's output is now the committed one
   */
  public static boolean commit(Path appLocalDir, int shuffleId, int mapId, Path tempData,
      long[] partitionLengths) throws IOException {
    throw new UnsupportedOperationException();
  }
}
