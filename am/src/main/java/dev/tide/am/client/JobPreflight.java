package dev.tide.am.client;

import dev.tide.am.client.ClientCommand.UsageException;
import dev.tide.am.staging.BadResourceException;
import dev.tide.am.staging.UserResources;
import dev.tide.app.AppOptions;
import dev.tide.app.UserClassLoader;
import dev.tide.driver.alloc.StreamingSettings;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPaths;
import dev.tide.driver.job.StreamingJob;
import dev.tide.driver.job.TideJob;
import dev.tide.driver.jobs.BuiltInJobs;
import dev.tide.driver.streaming.RateSchedule;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client checks before it asks YARN for anything, so that a job that cannot start
 * fails on the client with the reason and exit code 2 instead of as a failed application: the
 * {@code --jar} is a readable jar, the job names a built-in job or a {@link TideJob} class with
 * a public no-arg constructor (loaded from Tide's classpath, the {@code --jar} and the local
 * {@code -libjars}), the job's arguments are well-formed ({@link TideJob#checkArguments}) and its
 * paths fit ({@link TideJob#checkPaths}: for the built-in jobs an input that exists and holds
 * something to read, an output that does not exist yet; a stream's output may exist, as a
 * directory). A job's plan is never made here: it may read the input, and runs in the
 * ApplicationMaster.
 */
final class JobPreflight {
  private static final Logger LOG = LoggerFactory.getLogger(JobPreflight.class);

  private JobPreflight() {}

  /** @return true when the job is a stream ({@link StreamingJob}) */
  static boolean check(ClientCommand command, Configuration conf) throws UsageException {
    return check(command, conf, JobPreflight.class.getClassLoader());
  }

  /**
   * @param tide the class loader of Tide's own classes: under {@code yarn jar} (Hadoop's
   *     {@code RunJar}) a URLClassLoader over tide-app.jar, which must stay open
   */
  static boolean check(ClientCommand command, Configuration conf, ClassLoader tide)
      throws UsageException {
    List<URL> jars = new ArrayList<>();
    if (command.jar().isPresent()) {
      jars.add(UserClassLoader.toUrl(readableJar(command.jar().get())));
    }
    boolean remoteJars = false;
    List<URI> libjars;
    try {
      libjars = UserResources.uris(conf, UserResources.Kind.LIBJAR);
    } catch (BadResourceException e) {
      throw new UsageException(e.getMessage());
    }
    for (URI libjar : libjars) {
      if ("file".equals(libjar.getScheme())) {
        jars.add(UserClassLoader.toUrl(new File(libjar.getPath())));
      } else {
        remoteJars = true;
      }
    }
    ClassLoader loader = jars.isEmpty() ? tide
        : UserClassLoader.create(jars, tide, AppOptions.USER_CLASSPATH_FIRST.get(conf));
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      TideJob job = newJob(command, remoteJars);
      if (job != null) {
        try {
          JobContext context = new JobContext(conf, command.jobArgs());
          job.checkArguments(context);
          if (job instanceof StreamingJob stream) {
            StreamingSettings.checkNotBothEnabled(conf);
            StreamingSettings.from(conf);
            RateSchedule.parse(TideOptions.STREAMING_RATE_SCHEDULE.get(conf));
            stream.checkSource(context);
            JobPaths.requireStreamOutput(conf, stream.outputPath(context));
          }
          job.checkPaths(context);
          return job instanceof StreamingJob;
        } catch (IllegalArgumentException e) {
          throw new UsageException(e.getMessage());
        } catch (IOException e) {
          throw new UsageException("job " + command.job() + ": " + e.getMessage());
        }
      }
      return false;
    } finally {
      thread.setContextClassLoader(previous);
      // Only the loader made here for the user's jars: closing Tide's own (RunJar's) would
      // leave the client unable to load its next class.
      if (loader != tide && loader instanceof URLClassLoader userLoader) {
        try {
          userLoader.close();
        } catch (IOException e) {
          LOG.debug("Closing the client's user class loader", e);
        }
      }
    }
  }

  private static File readableJar(String path) throws UsageException {
    File jar = new File(path);
    if (jar.isDirectory()) {
      throw new UsageException("--jar " + path + ": a directory, not a jar (package the classes"
          + " with 'jar cf job.jar -C " + path + " .')");
    }
    if (!jar.isFile()) {
      throw new UsageException("--jar " + path + ": no such file");
    }
    try (JarFile ignored = new JarFile(jar)) {
      return jar;
    } catch (IOException e) {
      throw new UsageException("--jar " + path + ": not a readable jar (" + e.getMessage()
          + ")");
    }
  }

  /** The job instance, or null when its class may be in a remote -libjars jar. */
  private static TideJob newJob(ClientCommand command, boolean remoteJars)
      throws UsageException {
    String name = command.job();
    try {
      return BuiltInJobs.newJob(name);
    } catch (IllegalArgumentException e) {
      if (e.getCause() instanceof ClassNotFoundException) {
        if (remoteJars) {
          LOG.warn("Job class {} is not on the client's classpath; it may be in a -libjars jar"
              + " outside the local FileSystem, so the ApplicationMaster will try", name);
          return null;
        }
        throw new UsageException("unknown job '" + name + "': not a built-in job ("
            + String.join(", ", BuiltInJobs.builtInNames()) + ") nor a class on Tide's classpath"
            + (command.jar().isPresent() ? ", in --jar " + command.jar().get() : "")
            + " or in -libjars");
      }
      throw new UsageException(e.getMessage());
    } catch (LinkageError e) {
      throw new UsageException("job class " + name + " cannot be loaded: " + e
          + " (is a jar it needs missing from -libjars?)");
    }
  }
}
