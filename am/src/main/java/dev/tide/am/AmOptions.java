package dev.tide.am;

import static dev.tide.conf.ConfigOption.booleanOption;
import static dev.tide.conf.ConfigOption.durationOption;
import static dev.tide.conf.ConfigOption.enumOption;
import static dev.tide.conf.ConfigOption.intOption;
import static dev.tide.conf.ConfigOption.memoryMbOption;
import static dev.tide.conf.ConfigOption.stringOption;

import dev.tide.conf.ConfigOption;
import dev.tide.conf.ConfigOptions;
import dev.tide.driver.alloc.AllocationSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Every setting of the submission client and the ApplicationMaster, with its default and
 * validation. Executor settings live in {@link dev.tide.driver.conf.TideOptions}. Reading a bad
 * value throws an IllegalArgumentException naming the key and the value; {@link #validate} reads
 * them all once at start-up.
 */
public final class AmOptions {
  private AmOptions() {}

  public static final ConfigOption<Integer> AM_MEMORY_MB =
      memoryMbOption("tide.am.memory", "512m", 32,
          "Heap of the ApplicationMaster (driver) JVM (512m, 2g; a plain number is MiB).");
  public static final ConfigOption<Integer> AM_MEMORY_OVERHEAD_MB =
      memoryMbOption("tide.am.memoryOverhead", "256m", 0,
          "AM container memory beyond its heap (a plain number is MiB).");
  public static final ConfigOption<Integer> AM_CORES =
      intOption("tide.am.cores", 1, 1, "Virtual cores of the ApplicationMaster container.");
  public static final ConfigOption<String> AM_JAVA_OPTS =
      stringOption("tide.am.javaOpts", "", "Extra JVM options for the ApplicationMaster.");
  public static final ConfigOption<String> QUEUE =
      stringOption("tide.queue", "default", "YARN queue the application is submitted to.")
          .withCheck(queue -> !queue.isEmpty(), "must not be empty");
  public static final ConfigOption<String> APP_NAME =
      stringOption("tide.app.name", "", "Application name shown by YARN; empty means"
          + " 'tide <job>'.");
  public static final ConfigOption<String> STAGING_DIR =
      stringOption("tide.yarn.stagingDir", "", "Directory (default FileSystem) where the client"
          + " stages the app jar and tide-job.xml, one subdirectory per application; empty means"
          + " .tide-staging under the user's home directory.");
  public static final ConfigOption<String> CONTAINER_CLASSPATH =
      stringOption("tide.yarn.container.classpath", "", "When set, no jar is staged and every"
          + " container (AM and executors) uses exactly this CLASSPATH. For tests and the"
          + " embedded demo, which run from class directories.");
  public static final ConfigOption<String> CONTAINER_JAVA_HOME =
      stringOption("tide.yarn.container.javaHome", "", "When set, JAVA_HOME of every container"
          + " (AM and executors); empty means the NodeManager's own JAVA_HOME. Tests set it to"
          + " the test JVM's java.home when JAVA_HOME is not exported.");
  public static final ConfigOption<Duration> CLIENT_POLL_INTERVAL =
      durationOption("tide.client.pollInterval", "1s",
          "How often the client asks YARN and the AM for state and progress.")
          .withCheck(d -> !d.isZero(), "must be positive");

  public static final ConfigOption<Boolean> CLIENT_DETACH =
      booleanOption("tide.client.detach", false, "When true (or with --detach), the client"
          + " returns once the application is RUNNING, printing its id and how to follow it,"
          + " instead of printing progress until the end. The ApplicationMaster deletes the"
          + " staging directory at its end either way.");
  public static final ConfigOption<Integer> AM_MAX_ATTEMPTS =
      intOption("tide.am.maxAttempts", 1, 1, "Attempts of the ApplicationMaster (YARN's"
          + " maximum application attempts; yarn.resourcemanager.am.max-attempts caps it). A"
          + " new attempt starts the job again from its beginning.");

  public static final ConfigOption<String> APP_TAGS =
      stringOption("tide.app.tags", "", "Application tags (comma-separated), as YARN lists and"
          + " filters them (yarn application -list -appTags ...).");
  public static final ConfigOption<Integer> APP_PRIORITY =
      intOption("tide.app.priority", -1, -1, "YARN priority of the application within its"
          + " queue (higher first, where the scheduler uses priorities); -1 leaves the queue's"
          + " default.");
  public static final ConfigOption<String> AM_NODE_LABEL_EXPRESSION =
      stringOption("tide.am.nodeLabelExpression", "", "YARN node-label expression for the"
          + " ApplicationMaster's container; empty means the queue's default label.");
  public static final ConfigOption<String> EXECUTOR_NODE_LABEL_EXPRESSION =
      stringOption("tide.executor.nodeLabelExpression", "", "YARN node-label expression for"
          + " the executors' containers (e.g. gpu, or a partition of spot nodes); the queue"
          + " must have access to the label. Empty means the queue's default label. YARN"
          + " takes no node or rack together with a label, so with one set executors are"
          + " asked for without locality and tide.yarn.placement does not apply.");
  public static final ConfigOption<String> HISTORY_URL =
      stringOption("tide.history.url", "", "Where the application's tracking link points once"
          + " it has ended (the final tracking URL the ApplicationMaster gives YARN, which"
          + " 'yarn application -status' prints and the ResourceManager's proxy opens): a URL"
          + " template in which {appId} is replaced by the application id, e.g. the address"
          + " where a history report is published"
          + " (http://reports.example.com/tide/{appId}.html). Empty means the"
          + " ResourceManager's page of the application, whose diagnostics end with the"
          + " application's summary and the 'bin/tide history' command for its report.")
          .withCheck(url -> url.isEmpty() || url.startsWith("http://")
              || url.startsWith("https://"), "must be empty or an http:// or https:// URL");

  public static final ConfigOption<String> VIEW_ACLS = aclOption("tide.ui.view.acls",
      "Users (comma-separated; * for everyone) who may read the application's web UI, JSON API"
          + " and /jmx, its ResourceManager pages and its logs (yarn logs), beside the submitting"
          + " user and YARN's admins (yarn.admin.acl). The client sets it as the application's"
          + " VIEW_APP ACL; it applies when yarn.acl.enable is true. Others get 403.");
  public static final ConfigOption<String> VIEW_ACLS_GROUPS = aclOption(
      "tide.ui.view.acls.groups", "Groups (comma-separated; * for everyone) whose members may"
          + " read what tide.ui.view.acls grants; groups as the cluster's"
          + " hadoop.security.group.mapping resolves them.");
  public static final ConfigOption<String> MODIFY_ACLS = aclOption("tide.ui.modify.acls",
      "Users (comma-separated; * for everyone) who may kill the application (yarn application"
          + " -kill, bin/tide kill), beside the submitting user and YARN's admins: the"
          + " application's MODIFY_APP ACL, which YARN enforces when yarn.acl.enable is true.");
  public static final ConfigOption<String> MODIFY_ACLS_GROUPS = aclOption(
      "tide.ui.modify.acls.groups", "Groups (comma-separated; * for everyone) whose members may"
          + " do what tide.ui.modify.acls grants.");

  /** A comma-separated list of user or group names: no blank inside a name. */
  private static ConfigOption<String> aclOption(String key, String description) {
    return stringOption(key, "", description).withCheck(
        names -> java.util.Arrays.stream(names.split(",")).map(String::trim)
            .noneMatch(name -> name.chars().anyMatch(Character::isWhitespace)),
        "must be names separated by commas (no blank inside a name)");
  }

  /** The values of {@link #PLACEMENT}. */
  public enum Placement { LOCALITY, SPREAD, PACK }

  public static final ConfigOption<Placement> PLACEMENT = enumOption("tide.yarn.placement",
      Placement.class, Placement.LOCALITY, "Where executors go: locality (near the"
          + " pending tasks' preferred hosts), spread (over as many nodes as possible) or pack"
          + " (on as few nodes as possible). spread and pack use YARN placement constraints when"
          + " the ResourceManager enables them, node-list requests otherwise.");
  public static final ConfigOption<Duration> FAILURES_VALIDITY_INTERVAL =
      durationOption("tide.executor.failuresValidityInterval", "1h", "How long an executor"
          + " failure counts towards tide.executor.maxFailures and"
          + " tide.yarn.maxFailuresPerHost; must be positive.")
          .withCheck(d -> !d.isZero(), "must be positive");
  public static final ConfigOption<Integer> MAX_FAILURES_PER_HOST =
      intOption("tide.yarn.maxFailuresPerHost", 2, 0, "Executor failures on one node (within"
          + " the validity interval; containers that exceeded their memory or whose user code"
          + " called System.exit do not count against their node) after which the node is excluded for"
          + " tide.yarn.hostExclusionTimeout; 0 never excludes. Exclusion never leaves the"
          + " application without a node: when every node is excluded while executors are"
          + " wanted, the oldest exclusion is lifted (with a WARN) and that node's failures so"
          + " far are forgiven; tide.executor.maxFailures still bounds the failures in all.");
  public static final ConfigOption<Duration> HOST_EXCLUSION_TIMEOUT =
      durationOption("tide.yarn.hostExclusionTimeout", "10m",
          "How long a node with repeated executor failures gets no executors (unless every"
          + " node is excluded: see tide.yarn.maxFailuresPerHost).");

  public static final ConfigOption<String> KERBEROS_PRINCIPAL =
      stringOption("tide.kerberos.principal", "", "With tide.kerberos.keytab (or --principal"
          + " and --keytab): the Kerberos principal the client and the ApplicationMaster log in"
          + " as, so that the AM can obtain fresh delegation tokens for as long as the"
          + " application runs (a stream beyond the tokens' maximum lifetime). Empty: the client"
          + " uses the user's ticket (kinit) and the tokens it obtains end with their maximum"
          + " lifetime.");
  public static final ConfigOption<String> KERBEROS_KEYTAB =
      stringOption("tide.kerberos.keytab", "", "The keytab of tide.kerberos.principal (a local"
          + " file of the client). It is shipped to the ApplicationMaster as a file private to"
          + " the application, as Spark ships --keytab.");
  public static final ConfigOption<String> KERBEROS_FILESYSTEMS =
      stringOption("tide.kerberos.access.hadoopFileSystems", "", "With Kerberos on: more"
          + " FileSystems (comma-separated URIs, e.g. hdfs://other-nn:8020) the job's tasks"
          + " use, for which the client obtains delegation tokens too. The default FileSystem,"
          + " the event log's and every FileSystem a job argument names (hdfs://... in an"
          + " input or output path) are always included.");

  /**
   * Set by the client in tide-job.xml, never by users: the fully qualified path of the staged
   * app jar, which the AM localizes for its executors. Absent when no jar was staged.
   */
  public static final String STAGED_JAR_KEY = "tide.yarn.internal.stagedJar";

  /**
   * Set by the client in tide-job.xml, never by users: the application's staging directory,
   * which the AM deletes at its end.
   */
  public static final String STAGING_APP_DIR_KEY = dev.tide.driver.Driver.STAGING_APP_DIR_KEY;

  public static List<ConfigOption<?>> all() {
    return List.of(AM_MEMORY_MB, AM_MEMORY_OVERHEAD_MB, AM_CORES, AM_JAVA_OPTS, QUEUE, APP_NAME,
        STAGING_DIR, CONTAINER_CLASSPATH, CONTAINER_JAVA_HOME, CLIENT_POLL_INTERVAL,
        CLIENT_DETACH, AM_MAX_ATTEMPTS, APP_TAGS, APP_PRIORITY, AM_NODE_LABEL_EXPRESSION,
        EXECUTOR_NODE_LABEL_EXPRESSION, PLACEMENT,
        FAILURES_VALIDITY_INTERVAL, MAX_FAILURES_PER_HOST, HOST_EXCLUSION_TIMEOUT,
        HISTORY_URL, VIEW_ACLS, VIEW_ACLS_GROUPS, MODIFY_ACLS, MODIFY_ACLS_GROUPS,
        KERBEROS_PRINCIPAL, KERBEROS_KEYTAB, KERBEROS_FILESYSTEMS);
  }

  /**
   * Reads every option once so that bad values fail at start-up, then the dynamic allocation
   * settings, which are only valid together (minExecutors at most maxExecutors, rampUp one of
   * its modes ...), so that the client refuses them before submitting.
   *
   * @throws IllegalArgumentException naming every bad key with its value
   */
  public static void validate(Configuration conf) {
    ConfigOptions.validate(conf, all());
    AllocationSettings.from(conf);
  }

  /** {@code tide.yarn.placement}. */
  public static Placement placement(Configuration conf) {
    return PLACEMENT.get(conf);
  }

  /** The application name: {@code tide.app.name}, or {@code tide <job>} when unset. */
  public static String appName(Configuration conf, String job) {
    String name = APP_NAME.get(conf);
    return name.isEmpty() ? "tide " + job : name;
  }

  /** The fixed container CLASSPATH, if {@code tide.yarn.container.classpath} is set. */
  public static Optional<String> containerClasspath(Configuration conf) {
    String classpath = CONTAINER_CLASSPATH.get(conf);
    return classpath.isEmpty() ? Optional.empty() : Optional.of(classpath);
  }

  /** The staging root, qualified in {@code fs}. */
  public static Path stagingDir(Configuration conf, FileSystem fs) {
    String dir = STAGING_DIR.get(conf);
    Path path = dir.isEmpty() ? new Path(fs.getHomeDirectory(), ".tide-staging") : new Path(dir);
    return fs.makeQualified(path);
  }
}
