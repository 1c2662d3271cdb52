package dev.tide.app;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ApplicationClassLoader;

/**
 * The class loader of one application's user code: the jars given with {@code --jar} and
 * {@code -libjars}, localized into each container's working directory under the names listed
 * in {@link #USER_JARS_KEY}. The ApplicationMaster makes one before it creates the driver and
 * executors make one when they register; each sets it as the context class loader of the
 * threads that instantiate jobs, mappers and reducers ({@code JobClasses.newInstance}).
 *
 * <p>By default Tide's own classes win (parent first: the user's jars come after Tide's
 * classpath). With {@code tide.user.classpath.first=true} the user's jars come first, except
 * for the JDK, Hadoop, logging and Tide's own packages, which always come from Tide's classpath
 * so that the job API the user's classes implement is the one the framework calls.
 */
public final class UserClassLoader {
  /**
   * Set by the client in the job's settings, never by users: the names of the user's jars in a
   * container's working directory, comma-separated, in classpath order.
   */
  public static final String USER_JARS_KEY = "tide.internal.userJars";

  /**
   * Packages that never come from a user's jar, even with the user's classpath first: every
   * package of Tide's own but the examples (a new package of Tide's belongs here).
   */
  private static final List<String> TIDE_PACKAGES = List.of("dev.tide.driver.",
      "dev.tide.executor.", "dev.tide.rpc.", "dev.tide.app.", "dev.tide.output.",
      "dev.tide.shuffle.", "dev.tide.am.", "dev.tide.shaded.");

  private UserClassLoader() {}

  /**
   * The loader for the user's jars named in {@code conf}, relative to {@code workDir}, or
   * {@code parent} itself when the job has no jars of its own.
   *
   * @throws IOException when a listed jar is missing from {@code workDir}
   */
  public static ClassLoader forContainer(Configuration conf, File workDir, ClassLoader parent)
      throws IOException {
    List<URL> jars = new ArrayList<>();
    for (String name : conf.getTrimmedStrings(USER_JARS_KEY)) {
      File jar = new File(workDir, name);
      if (!jar.isFile()) {
        throw new IOException("user jar " + name + " is not in the container's working"
            + " directory " + workDir.getAbsolutePath() + " (was it localized?)");
      }
      jars.add(toUrl(jar));
    }
    if (jars.isEmpty()) {
      return parent;
    }
    return create(jars, parent, AppOptions.USER_CLASSPATH_FIRST.get(conf));
  }

  /** A loader over {@code jars}, after {@code parent}'s classes or (userFirst) before them. */
  public static URLClassLoader create(List<URL> jars, ClassLoader parent, boolean userFirst) {
    URL[] urls = jars.toArray(new URL[0]);
    if (!userFirst) {
      return new URLClassLoader(urls, parent);
    }
    List<String> systemClasses = new ArrayList<>(
        Arrays.asList(ApplicationClassLoader.SYSTEM_CLASSES_DEFAULT.split("\\s*,\\s*")));
    systemClasses.addAll(TIDE_PACKAGES);
    return new ApplicationClassLoader(urls, parent, systemClasses);
  }

  public static URL toUrl(File jar) {
    try {
      return jar.getAbsoluteFile().toURI().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("bad jar path " + jar, e);
    }
  }
}
