package dev.tide.output;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's output directory, committed the way Hadoop's {@code FileOutputCommitter} (algorithm
 * 1) does: the directory is created when the job starts (it must not exist, as in MapReduce); a
 * task attempt writes {@code _temporary/attempt_<taskId>/part-r-NNNNN}; the task commit renames
 * the attempt's directory to {@code _temporary/task_NNNNN} (the first attempt to commit wins); the
 * job commit moves every committed task's files into the directory, deletes {@code _temporary}
 * and writes {@code _SUCCESS}. So readers see no part file before the job succeeds, and a failed
 * job's directory is deleted: it leaves no partial output.
 *
 * <p>{@code _temporary/_application_<id>} names the application that made the directory. A new
 * attempt of the same application (its AM died before the job committed) finds that mark and
 * starts the directory over instead of refusing it as existing output; so does another
 * application when the one named is no longer running ({@link ApplicationLiveness}): its AM was
 * killed before it could abort (MapReduce's committer likewise removes a dead job's
 * {@code _temporary/}). The output of an application that still runs is never touched.
 */
public final class JobOutput {
  private static final Logger LOG = LoggerFactory.getLogger(JobOutput.class);
  static final String TEMPORARY = "_temporary";
  private static final String SUCCESS = "_SUCCESS";
  /** {@code _temporary/_application_<id>}: the application that made the directory. */
  private static final String OWNER_PREFIX = "_application_";

  private JobOutput() {}

  /** As {@link #prepare(Configuration, String, String, ApplicationLiveness)}, knowing no liveness. */
  public static void prepare(Configuration conf, String output, String appId)
      throws IOException {
    prepare(conf, output, appId, ApplicationLiveness.UNKNOWN);
  }

  /**
   * Creates the output directory with {@code appId}'s mark in its {@code _temporary/}. An
   * existing directory is refused unless it is the uncommitted output of this application (an
   * earlier attempt) or of one {@code liveness} says is no longer running; either is deleted
   * first.
   */
  public static void prepare(Configuration conf, String output, String appId,
      ApplicationLiveness liveness) throws IOException {
    if (output.isEmpty()) {
      return;
    }
    Path path = new Path(output);
    FileSystem fs = path.getFileSystem(conf);
    Path mark = ownerMark(path, appId);
    if (fs.exists(path)) {
      Path qualified = fs.makeQualified(path);
      if (fs.exists(mark)) {
        LOG.info("Output directory {} is the uncommitted output of an earlier attempt of {};"
            + " starting it over", qualified, appId);
      } else {
        Optional<String> owner = uncommittedOwner(fs, path);
        if (owner.isEmpty()) {
          throw new IOException("output directory " + qualified + " already exists");
        }
        if (isRunning(liveness, owner.get())) {
          throw new IOException("output directory " + qualified + " already exists: it is"
              + " being written by " + owner.get() + ", which is still running");
        }
        LOG.info("Output directory {} is the uncommitted output of {}, which is no longer"
            + " running (its ApplicationMaster died before it could clean up); deleting it",
            qualified, owner.get());
      }
      fs.delete(path, true);
    }
    fs.mkdirs(new Path(path, TEMPORARY));
    fs.create(mark, false).close();
  }

  /**
   * The application that made {@code output} and has not committed it: named by the mark in
   * its {@code _temporary/}, when there is no {@code _SUCCESS}. Empty for a committed output,
   * a directory Tide did not make, or none.
   */
  public static Optional<String> uncommittedOwner(FileSystem fs, Path output)
      throws IOException {
    Path temporary = new Path(output, TEMPORARY);
    if (!fs.exists(temporary) || fs.exists(new Path(output, SUCCESS))) {
      return Optional.empty();
    }
    for (FileStatus entry : fs.listStatus(temporary,
        p -> p.getName().startsWith(OWNER_PREFIX))) {
      String owner = entry.getPath().getName().substring(OWNER_PREFIX.length());
      if (!owner.isEmpty()) {
        return Optional.of(owner);
      }
    }
    return Optional.empty();
  }

  private static boolean isRunning(ApplicationLiveness liveness, String appId) {
    try {
      return liveness.isRunning(appId);
    } catch (IOException e) {
      LOG.warn("Cannot tell whether {} still runs; treating it as running", appId, e);
      return true;
    }
  }

  private static Path ownerMark(Path output, String appId) {
    return new Path(new Path(output, TEMPORARY), OWNER_PREFIX + appId);
  }

  /** Where a task attempt writes its file. */
  public static Path attemptFile(String output, long taskId, int index) {
    return new Path(attemptDir(output, taskId), partName(index));
  }

  /**
   * Creates a task attempt's file ({@link #attemptFile}). An attempt that starts writing after
   * the job's output was committed (a speculative twin of a task that already won) is refused
   * rather than leaving a {@code _temporary} directory in the committed output.
   */
  public static java.io.OutputStream createAttemptFile(Configuration conf, String output,
      long taskId, int index) throws IOException {
    Path file = attemptFile(output, taskId, index);
    FileSystem fs = file.getFileSystem(conf);
    if (!fs.exists(new Path(output, TEMPORARY))) {
      throw new IOException("the output " + output + " was already committed (another attempt"
          + " of task " + index + " finished first); attempt " + taskId + " writes nothing");
    }
    return fs.create(file, false);
  }

  /**
   * Commits a task attempt's file (if it wrote one); returns false when another attempt of the
   * same task committed first, in which case this attempt's files are deleted; also when the
   * whole output was committed meanwhile (the attempt was a speculative one that lost).
   */
  public static boolean commitTask(Configuration conf, String output, long taskId, int index)
      throws IOException {
    Path attempt = attemptDir(output, taskId);
    FileSystem fs = attempt.getFileSystem(conf);
    Path task = new Path(new Path(output, TEMPORARY), String.format("task_%05d", index));
    if (fs.exists(new Path(output, "_SUCCESS"))) {
      fs.delete(new Path(output, TEMPORARY), true);
      return false;
    }
    if (!fs.exists(attempt)) {
      return true;
    }
    if (fs.exists(task) || !fs.rename(attempt, task)) {
      fs.delete(attempt, true);
      return false;
    }
    return true;
  }

  public static void commit(Configuration conf, String output) throws IOException {
    if (output.isEmpty()) {
      return;
    }
    Path path = new Path(output);
    FileSystem fs = path.getFileSystem(conf);
    Path temporary = new Path(path, TEMPORARY);
    for (FileStatus task : fs.listStatus(temporary, p -> p.getName().startsWith("task_"))) {
      for (FileStatus file : fs.listStatus(task.getPath())) {
        Path target = new Path(path, file.getPath().getName());
        if (!fs.rename(file.getPath(), target)) {
          throw new IOException("could not move " + file.getPath() + " to " + target);
        }
      }
    }
    fs.delete(temporary, true);
    fs.create(new Path(path, SUCCESS), true).close();
  }

  /** A failed job leaves nothing: its output directory (made by {@link #prepare}) goes. */
  public static void abort(Configuration conf, String output) throws IOException {
    if (output.isEmpty()) {
      return;
    }
    Path path = new Path(output);
    try {
      path.getFileSystem(conf).delete(path, true);
    } catch (FileNotFoundException e) {
      // nothing to delete
    }
  }

  private static Path attemptDir(String output, long taskId) {
    return new Path(new Path(output, TEMPORARY), "attempt_" + taskId);
  }

  private static String partName(int index) {
    return String.format("part-r-%05d", index);
  }
}
