package dev.tide.am.staging;

import dev.tide.am.yarn.YarnApplicationLiveness;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the staging directories that ended applications left behind: an AM killed by SIGKILL,
 * or on an attempt another could have followed, cleans nothing up. The client calls it before
 * each submission on its own staging root. A directory goes when the ResourceManager reports
 * its application FINISHED, FAILED or KILLED, or does not know it and the directory is older
 * than {@link #UNKNOWN_MIN_AGE} (a client that has created its application but not yet
 * submitted it stages into a directory the ResourceManager does not know yet). Directories not
 * named as an application id, and applications that run, are left alone.
 */
public final class LeftoverStaging {
  private static final Logger LOG = LoggerFactory.getLogger(LeftoverStaging.class);
  static final Duration UNKNOWN_MIN_AGE = Duration.ofHours(1);
  /** At most this many directories are asked about per submission (one RM call each). */
  static final int MAX_CHECKED = 50;

  private LeftoverStaging() {}

  /** Deletes the leftovers under {@code root}; returns what it deleted. */
  public static List<Path> delete(FileSystem fs, Path root, YarnClient yarn, long nowMillis) {
    List<Path> deleted = new ArrayList<>();
    FileStatus[] dirs;
    try {
      dirs = fs.listStatus(root, p -> p.getName().startsWith("application_"));
    } catch (FileNotFoundException e) {
      return deleted;
    } catch (IOException e) {
      LOG.warn("Cannot list the staging directory {} for leftovers", root, e);
      return deleted;
    }
    int checked = 0;
    for (FileStatus dir : dirs) {
      if (!dir.isDirectory() || checked >= MAX_CHECKED) {
        continue;
      }
      ApplicationId appId;
      try {
        appId = ApplicationId.fromString(dir.getPath().getName());
      } catch (IllegalArgumentException e) {
        continue;
      }
      checked++;
      String why = leftoverReason(yarn, appId,
          nowMillis - dir.getModificationTime() > UNKNOWN_MIN_AGE.toMillis());
      if (why == null) {
        continue;
      }
      try {
        if (fs.delete(dir.getPath(), true)) {
          LOG.info("Deleted the staging directory {} left by {} ({})", dir.getPath(), appId, why);
          deleted.add(dir.getPath());
        }
      } catch (IOException e) {
        LOG.warn("Cannot delete the leftover staging directory {}", dir.getPath(), e);
      }
    }
    return deleted;
  }

  /** Why the directory of {@code appId} is a leftover, or null when it is not (or unknown). */
  private static String leftoverReason(YarnClient yarn, ApplicationId appId, boolean old) {
    try {
      var state = yarn.getApplicationReport(appId).getYarnApplicationState();
      return YarnApplicationLiveness.ENDED.contains(state) ? "it ended " + state : null;
    } catch (ApplicationNotFoundException e) {
      return old ? "the ResourceManager does not know it" : null;
    } catch (YarnException | IOException e) {
      LOG.debug("Cannot ask about {}; its staging directory stays", appId, e);
      return null;
    }
  }
}
