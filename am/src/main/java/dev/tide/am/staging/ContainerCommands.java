package dev.tide.am.staging;

import dev.tide.am.AmOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Builds what every Tide container (the AM and the executors) is started with: its CLASSPATH and
 * its java command line. Commands use YARN's cross-platform expansion variables
 * ({@code {{JAVA_HOME}}}, {@code {{PWD}}}, {@code <LOG_DIR>}), which the NodeManager expands.
 * Stateless and thread-safe.
 */
public final class ContainerCommands {
  /** Name of the app jar inside a container's working directory. */
  public static final String APP_JAR = "tide-app.jar";
  /** Name of the staged job configuration inside the AM's working directory. */
  public static final String JOB_CONF = "tide-job.xml";

  private ContainerCommands() {}

  /**
   * The container CLASSPATH: {@code tide.yarn.container.classpath} verbatim when set; otherwise
   * the localized app jar, the working directory, then {@code yarn.application.classpath}.
   */
  public static String classpath(Configuration conf) {
    return AmOptions.containerClasspath(conf).orElseGet(() -> {
      List<String> entries = new ArrayList<>();
      entries.add(Environment.PWD.$$() + "/" + APP_JAR);
      entries.add(Environment.PWD.$$());
      String[] yarnClasspath = conf.getTrimmedStrings(
          YarnConfiguration.YARN_APPLICATION_CLASSPATH,
          YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH);
      for (String entry : yarnClasspath) {
        if (!entry.isEmpty()) {
          entries.add(entry);
        }
      }
      return String.join(ApplicationConstants.CLASS_PATH_SEPARATOR, entries);
    });
  }

  /** Prefix of settings that add environment variables to the AM's container. */
  public static final String AM_ENV_PREFIX = "tide.am.env.";
  /** Prefix of settings that add environment variables to every executor's container. */
  public static final String EXECUTOR_ENV_PREFIX = "tide.executor.env.";

  /**
   * The environment of a Tide container: every {@code <envPrefix>NAME=value} setting as
   * {@code NAME=value}, then CLASSPATH, and JAVA_HOME when {@code tide.yarn.container.javaHome}
   * is set (these two win over a setting of the same name).
   *
   * @param envPrefix {@link #AM_ENV_PREFIX} or {@link #EXECUTOR_ENV_PREFIX}
   */
  public static Map<String, String> environment(Configuration conf, String envPrefix) {
    Map<String, String> environment = new HashMap<>(conf.getPropsWithPrefix(envPrefix));
    environment.put(Environment.CLASSPATH.name(), classpath(conf));
    String javaHome = AmOptions.CONTAINER_JAVA_HOME.get(conf);
    if (!javaHome.isEmpty()) {
      environment.put(Environment.JAVA_HOME.name(), javaHome);
    }
    return Map.copyOf(environment);
  }

  /** True when containers get the staged app jar (no fixed container classpath). */
  public static boolean stagesJar(Configuration conf) {
    return AmOptions.containerClasspath(conf).isEmpty();
  }

  /**
   * A java command line with stdout and stderr in the container's log directory:
   * {@code {{JAVA_HOME}}/bin/java -Xmx<heapMb>m <javaOpts> <mainClass> <args> 1><LOG_DIR>/stdout
   * 2><LOG_DIR>/stderr}. Blank java options are left out.
   */
  public static String javaCommand(int heapMb, String javaOpts, String mainClass,
      List<String> args) {
    List<String> parts = new ArrayList<>();
    parts.add(Environment.JAVA_HOME.$$() + "/bin/java");
    parts.add("-Xmx" + heapMb + "m");
    if (javaOpts != null && !javaOpts.isBlank()) {
      parts.add(javaOpts.trim());
    }
    parts.add(mainClass);
    parts.addAll(args);
    parts.add("1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stdout");
    parts.add("2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stderr");
    return String.join(" ", parts);
  }
}
