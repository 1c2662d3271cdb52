package dev.tide.am.client;

import dev.tide.am.AmOptions;
import dev.tide.am.ApplicationAcls;
import dev.tide.am.ApplicationMaster;
import dev.tide.am.ContainerSizes;
import dev.tide.am.security.DelegationTokens;
import dev.tide.am.security.KerberosLogin;
import dev.tide.am.staging.BadResourceException;
import dev.tide.am.staging.ContainerCommands;
import dev.tide.am.staging.LeftoverStaging;
import dev.tide.am.staging.StagingArea;
import dev.tide.am.staging.UserResources;
import dev.tide.am.yarn.ExecutorLaunchContexts;
import dev.tide.app.AppOptions;
import dev.tide.app.AppSecret;
import dev.tide.conf.ConfigOption;
import dev.tide.driver.ExecutorHeartbeats;
import dev.tide.driver.JobStatus;
import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobArgs;
import dev.tide.network.LogSafe;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.UndeclaredThrowableException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The submission client, run as {@code yarn jar tide-app.jar <job> <args...> [-D key=value]}.
 * It stages the app jar and {@code tide-job.xml} (the whole effective configuration plus the job
 * name and arguments) under {@code <tide.yarn.stagingDir>/<appId>/}, creates the application
 * secret, submits the AM container, then prints the application's state changes and, while it
 * runs, the job's progress from the AM's {@code /status} endpoint. It returns 0 when the
 * application FINISHED with SUCCEEDED, 1 otherwise, 2 for a usage or configuration error
 * (found before YARN is asked for anything: {@link ClientCommand}, {@link JobPreflight}). With
 * {@code --detach} it returns 0 as soon as the application is RUNNING. On Ctrl-C or SIGTERM
 * {@link KillOnShutdown} kills the application if it has not ended, and deletes the staging
 * directory. Otherwise the staging directory belongs to the AM, which deletes it at its end; the
 * client deletes it only for an application whose AM never ran (not submitted, or ended before
 * RUNNING), and before each submission deletes those that ended applications left behind
 * ({@link LeftoverStaging}).
 *
 * <p>Threading: {@link #run} on the caller's thread; one instance runs one application at a
 * time. Settings come from the Tool's configuration, from {@code tide-site.xml} on the classpath
 * and from {@code -D} options.
 */
public final class TideClient extends Configured implements Tool {
  private static final Logger LOG = LoggerFactory.getLogger(TideClient.class);
  public static final String APPLICATION_TYPE = "TIDE";
  static final String STOP_COMMAND = "stop";
  static final String TIMELINE_COMMAND = "timeline";
  static final String HISTORY_COMMAND = "history";
  static final String USAGE = String.join("\n",
      "usage: tide [--jar JAR] [--detach] [--principal P --keytab K] [generic options] <job>",
      "       [job args...] [-D key=value ...]",
      "       yarn jar tide-app.jar (the same arguments)",
      "  <job>         a built-in job: wordcount <input> <output>, or sleep [-m maps] [-r reduces]",
      "                [-mt ms] [-rt ms] [-b bytesPerMap] [-rd ms] [-o output];",
      "                sort, sortvalidate, kmeans; streaming: stream-wordcount <in dir> <output>,",
      "                stream-rate <output>;",
      "                or the class name of a dev.tide.driver.job.TideJob (public no-arg",
      "                constructor) in --jar, in -libjars or on Tide's classpath",
      "       tide stop <appId>   a streaming application ends after its running batch",
      "       tide timeline <appId | event log path>   what an application did, from its event log",
      "       tide history <appId | event log path> [report.html]   the web UI's pages as one file",
      "  --jar JAR     a jar with your job's classes, on the classpath of the AM and executors",
      "  --detach      return once the application runs (as tide.client.detach=true)",
      "  --principal P --keytab K   on a Kerberized cluster: log in as P from keytab K (no",
      "                kinit needed); the AM gets the keytab and obtains fresh delegation",
      "                tokens as long as the application runs (a stream past the tokens'",
      "                maximum lifetime)",
      "  -h, --help    print this text",
      "generic options (Hadoop's; after --jar and --detach too):",
      "  -D key=value  a setting; may also follow the job's arguments (the later one wins)",
      "  -libjars a.jar,b.jar         more jars for the classpath of the AM and executors",
      "  -files f1,f2#name            files put in every container's working directory",
      "  -archives a.zip,b.tgz#name   archives unpacked there, in a directory of that name",
      "  -conf file.xml               settings from a file",
      "exit codes: 0 the job succeeded, 1 it failed or was killed, 2 the command or a setting",
      "is wrong (reported before anything is submitted)");
  private static final EnumSet<YarnApplicationState> ENDED = EnumSet.of(
      YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);

  static {
    Configuration.addDefaultResource("tide-site.xml");
  }

  private final PrintStream out;
  private final PrintStream err;
  private volatile ApplicationId lastApplicationId;
  /** Kills the application being followed when the JVM is stopped (Ctrl-C, SIGTERM). */
  private KillOnShutdown killHook;
  /** True once the AM registered (RUNNING): from then on the AM deletes the staging dir. */
  private volatile boolean amStarted;

  public TideClient() {
    this(System.out, System.err);
  }

  /** For tests: all output, diagnostics included, goes to {@code out}. */
  public TideClient(PrintStream out) {
    this(out, out);
  }

  public TideClient(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) throws Exception {
    // Not ToolRunner: the generic options are parsed in run(), so that one Hadoop refuses (a
    // -libjars or -files path that does not exist) is reported like any other usage error.
    TideClient client = new TideClient();
    client.setConf(new YarnConfiguration());
    System.exit(client.run(args));
  }

  /** The application submitted last, or null before any submission. */
  public ApplicationId getLastApplicationId() {
    return lastApplicationId;
  }

  @Override
  public int run(String[] args) throws Exception {
    if (args.length == 0) {
      err.println(USAGE);
      return 2;
    }
    Configuration conf = new YarnConfiguration(getConf() == null ? new Configuration() : getConf());
    ClientCommand command;
    try {
      command = ClientCommand.parse(args, conf);
    } catch (ClientCommand.UsageException e) {
      return usageError(e.getMessage());
    }
    if (command.help()) {
      out.println(USAGE);
      return 0;
    }
    UserGroupInformation user;
    try {
      // Before anything touches HDFS or YARN: without a ticket their clients retry for long
      // and then fail with a stack trace.
      user = KerberosLogin.clientUser(conf, Instant.now());
    } catch (KerberosLogin.LoginProblem e) {
      err.println("tide: " + e.getMessage());
      return 2;
    }
    try {
      return user.doAs((PrivilegedExceptionAction<Integer>) () -> run(command, conf));
    } catch (UndeclaredThrowableException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  private int usageError(String message) {
    err.println("tide: " + message);
    err.println("('tide --help' prints the usage)");
    return 2;
  }

  /** Runs {@code command} as the user {@link KerberosLogin#clientUser} chose. */
  private int run(ClientCommand command, Configuration conf) throws Exception {
    List<UserResources.Resource> resources;
    Credentials tokens;
    boolean streaming;
    try {
      if (command.job().equals(STOP_COMMAND) && command.jar().isEmpty()) {
        return stop(conf, command.jobArgs());
      }
      if (command.job().equals(TIMELINE_COMMAND) && command.jar().isEmpty()) {
        return new EventLogCommands(conf, out, err).timeline(command.jobArgs());
      }
      if (command.job().equals(HISTORY_COMMAND) && command.jar().isEmpty()) {
        return new EventLogCommands(conf, out, err).history(command.jobArgs());
      }
      validateSettings(conf);
      resources = UserResources.of(conf, command.jar());
      streaming = JobPreflight.check(command, conf);
    } catch (ClientCommand.UsageException | BadResourceException e) {
      return usageError(e.getMessage());
    }
    try {
      tokens = applicationTokens(conf, command.jobArgs());
    } catch (KerberosLogin.LoginProblem | IllegalArgumentException | IOException e) {
      err.println("tide: " + e.getMessage());
      return 2;
    }
    if (streaming) {
      TokenLifetime.streamWarning(conf, tokens, Instant.now()).ifPresent(err::println);
    }
    String job = command.job();
    List<String> jobArgs = command.jobArgs();

    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
    try {
      YarnClientApplication app = yarn.createApplication();
      ApplicationId appId = app.getNewApplicationResponse().getApplicationId();
      lastApplicationId = appId;
      Resource amResource = amResource(conf);
      Resource max = app.getNewApplicationResponse().getMaximumResourceCapability();
      if (amResource.getMemorySize() > max.getMemorySize()
          || amResource.getVirtualCores() > max.getVirtualCores()) {
        err.println("tide: the AM container (" + amResource + " from "
            + AmOptions.AM_MEMORY_MB.key() + " + " + AmOptions.AM_MEMORY_OVERHEAD_MB.key()
            + ", " + AmOptions.AM_CORES.key() + ") exceeds the cluster's maximum " + max);
        return 2;
      }
      FileSystem fs = FileSystem.get(conf);
      Path stagingRoot = AmOptions.stagingDir(conf, fs);
      LeftoverStaging.delete(fs, stagingRoot, yarn, System.currentTimeMillis());
      StagingArea staging = StagingArea.create(fs, stagingRoot, appId.toString());
      boolean detach = command.detach() || AmOptions.CLIENT_DETACH.get(conf);
      amStarted = false;
      killHook = new KillOnShutdown(yarn, appId, () -> deleteStaging(staging), err);
      try {
        ApplicationSubmissionContext context = app.getApplicationSubmissionContext();
        prepareSubmission(context, conf, staging, job, jobArgs, resources, amResource,
            tokens);
        if (!detach) {
          killHook.register();
        }
        try {
          yarn.submitApplication(context);
        } catch (YarnException e) {
          err.println("tide: YARN refused " + appId + ": " + e.getMessage());
          return 1;
        }
        out.println(submittedLine(appId, context.getApplicationName(), context.getQueue()));
        return monitor(yarn, appId, conf, detach);
      } finally {
        // When the JVM is shutting down (Ctrl-C) the hook is killing the application with this
        // YarnClient: it is not stopped before the hook is done.
        killHook.unregister();
        if (!amStarted) {
          // Never submitted, or ended before its AM ran: nobody else will delete it.
          deleteStaging(staging);
        }
      }
    } finally {
      yarn.stop();
    }
  }

  /**
   * {@code tide stop <appId>}: asks a running streaming application to stop after its running
   * batch, by a marker file in its staging directory, which its driver checks twice a second.
   */
  private int stop(Configuration conf, List<String> args) throws IOException {
    if (args.size() != 1) {
      err.println("tide: usage: tide stop <applicationId>");
      return 2;
    }
    ApplicationId appId;
    try {
      appId = ApplicationId.fromString(args.get(0));
    } catch (IllegalArgumentException e) {
      err.println("tide: '" + args.get(0) + "' is not an application id (application_..._...)");
      return 2;
    }
    FileSystem fs = FileSystem.get(conf);
    Path dir = new Path(AmOptions.stagingDir(conf, fs), appId.toString());
    if (!fs.exists(dir)) {
      err.println("tide: " + appId + " has no staging directory " + fs.makeQualified(dir)
          + ": it is not a running Tide application of this user (or it has ended)");
      return 1;
    }
    fs.create(new Path(dir, dev.tide.driver.Driver.STOP_MARKER), true).close();
    out.println("Asked " + appId + " to stop after its running batch (a streaming job; other"
        + " jobs ignore it)");
    return 0;
  }

  /**
   * Reads every setting once, so that a malformed {@code tide.*} value stops the client.
   *
   * @throws ClientCommand.UsageException naming the key and the value
   */
  static void validateSettings(Configuration conf) throws ClientCommand.UsageException {
    try {
      AmOptions.validate(conf);
      for (ConfigOption<?> option : TideOptions.all()) {
        option.get(conf);
      }
      ExecutorHeartbeats.check(conf);
    } catch (IllegalArgumentException e) {
      throw new ClientCommand.UsageException(e.getMessage());
    }
  }

  /**
   * Applies {@code -D key=value} / {@code -Dkey=value} given after the job name (ToolRunner
   * stops parsing options at the first non-option argument) and returns the other arguments.
   */
  static List<String> takeTrailingSettings(List<String> args, Configuration conf) {
    List<String> jobArgs = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String setting = null;
      if (arg.equals("-D") && i + 1 < args.size() && args.get(i + 1).indexOf('=') > 0) {
        setting = args.get(++i);
      } else if (arg.startsWith("-D") && arg.indexOf('=') > 2) {
        setting = arg.substring(2);
      }
      if (setting == null) {
        jobArgs.add(arg);
      } else {
        int eq = setting.indexOf('=');
        conf.set(setting.substring(0, eq).trim(), setting.substring(eq + 1), "command line");
      }
    }
    return jobArgs;
  }

  /** The AM container's resource: tide.am.memory + tide.am.memoryOverhead, tide.am.cores. */
  static Resource amResource(Configuration conf) {
    return ContainerSizes.am(conf);
  }

  /** The AM's java command line. */
  static String amCommand(Configuration conf) {
    return ContainerCommands.javaCommand(AmOptions.AM_MEMORY_MB.get(conf),
        AmOptions.AM_JAVA_OPTS.get(conf), ApplicationMaster.class.getName(), List.of());
  }

  /** The job's configuration as staged: everything in effect plus the job and its args. */
  static Configuration jobConf(Configuration conf, String job, List<String> jobArgs,
      Optional<Path> stagedJar) {
    Configuration jobConf = new Configuration(conf);
    jobConf.set(TideOptions.JOB.key(), job);
    jobConf.set(AppOptions.JOB_ARGS.key(), JobArgs.encode(jobArgs));
    jobConf.unset(AmOptions.STAGED_JAR_KEY);
    stagedJar.ifPresent(jar -> jobConf.set(AmOptions.STAGED_JAR_KEY, jar.toString()));
    return jobConf;
  }

  /**
   * With Kerberos on, delegation tokens (renewer: the ResourceManager, which renews them while
   * the application runs) for every FileSystem the application uses
   * ({@link DelegationTokens#fileSystems}), added to the tokens the user already holds;
   * otherwise none.
   */
  private static Credentials applicationTokens(Configuration conf, List<String> jobArgs)
      throws KerberosLogin.LoginProblem, IOException {
    Credentials tokens = new Credentials();
    if (!UserGroupInformation.isSecurityEnabled()) {
      return tokens;
    }
    String renewer = KerberosLogin.rmPrincipal(conf);
    tokens.addAll(UserGroupInformation.getCurrentUser().getCredentials());
    Set<URI> filesystems = DelegationTokens.fileSystems(conf, jobArgs);
    List<Token<?>> added = DelegationTokens.obtain(conf, renewer, filesystems, tokens);
    LOG.info("Delegation tokens for {}: obtained {}", filesystems,
        DelegationTokens.describe(added));
    return tokens;
  }

  private void prepareSubmission(ApplicationSubmissionContext context, Configuration conf,
      StagingArea staging, String job, List<String> jobArgs,
      List<UserResources.Resource> resources, Resource amResource, Credentials tokens)
      throws IOException {
    Optional<Path> stagedJar = Optional.empty();
    if (ContainerCommands.stagesJar(conf)) {
      stagedJar = Optional.of(
          staging.copyIn(StagingArea.jarOf(TideClient.class), ContainerCommands.APP_JAR));
    }
    Configuration jobConf = jobConf(conf, job, jobArgs, stagedJar);
    UserResources.stage(resources, staging, conf, jobConf);
    jobConf.set(AmOptions.STAGING_APP_DIR_KEY, staging.dir().toString());
    String keytab = AmOptions.KERBEROS_KEYTAB.get(conf);
    if (UserGroupInformation.isSecurityEnabled() && !keytab.isEmpty()) {
      // Private to the application (owner-only in the staging directory, APPLICATION
      // visibility), localized for the AM only; the AM finds it in its working directory.
      staging.copyIn(new java.io.File(keytab), KerberosLogin.AM_KEYTAB);
      jobConf.set(AmOptions.KERBEROS_KEYTAB.key(), KerberosLogin.AM_KEYTAB);
    }
    staging.writeConf(jobConf, ContainerCommands.JOB_CONF);
    Map<String, LocalResource> localResources = staging.localResources();

    Credentials credentials = AppSecret.asCredentials(AppSecret.generate());
    credentials.addAll(tokens);
    ContainerLaunchContext amContainer = ContainerLaunchContext.newInstance(localResources,
        ContainerCommands.environment(conf, ContainerCommands.AM_ENV_PREFIX), List.of(amCommand(conf)), null,
        ByteBuffer.wrap(ExecutorLaunchContexts.serialize(credentials)), null);
    amContainer.setApplicationACLs(ApplicationAcls.forYarn(conf));

    context.setApplicationName(AmOptions.appName(conf, job));
    context.setApplicationType(APPLICATION_TYPE);
    context.setQueue(AmOptions.QUEUE.get(conf));
    context.setMaxAppAttempts(AmOptions.AM_MAX_ATTEMPTS.get(conf));
    List<String> tags = AmOptions.APP_TAGS.get(conf).isBlank() ? List.of()
        : List.of(conf.getTrimmedStrings(AmOptions.APP_TAGS.key()));
    if (!tags.isEmpty()) {
      context.setApplicationTags(new java.util.HashSet<>(tags));
    }
    int priority = AmOptions.APP_PRIORITY.get(conf);
    if (priority >= 0) {
      context.setPriority(Priority.newInstance(priority));
    }
    String amLabel = AmOptions.AM_NODE_LABEL_EXPRESSION.get(conf);
    if (!amLabel.isEmpty()) {
      ResourceRequest amRequest = ResourceRequest.newInstance(Priority.newInstance(0),
          ResourceRequest.ANY, amResource, 1);
      amRequest.setNodeLabelExpression(amLabel);
      context.setAMContainerResourceRequests(List.of(amRequest));
    }
    context.setResource(amResource);
    context.setAMContainerSpec(amContainer);
    LOG.debug("AM command of {}: {}", context.getApplicationId(), amContainer.getCommands());
  }

  /**
   * Prints state changes and progress until the application ends, or, when {@code detach},
   * until it is RUNNING.
   */
  private int monitor(YarnClient yarn, ApplicationId appId, Configuration conf, boolean detach)
      throws Exception {
    Duration pollInterval = AmOptions.CLIENT_POLL_INTERVAL.get(conf);
    AmStatusClient statusClient = new AmStatusClient(pollInterval.plusSeconds(1));
    ClientProgress progress = new ClientProgress(appId);
    YarnApplicationState lastState = null;
    while (true) {
      ApplicationReport report = yarn.getApplicationReport(appId);
      YarnApplicationState state = report.getYarnApplicationState();
      if (state != lastState) {
        out.println(appId + " " + state);
        lastState = state;
      }
      progress.attempt(report.getCurrentApplicationAttemptId()).forEach(out::println);
      if (ENDED.contains(state)) {
        killHook.applicationEnded();
        return reportEnd(appId, report);
      }
      if (state == YarnApplicationState.RUNNING && !amStarted) {
        amStarted = true;
        out.println(appId + " tracking URL: " + trackingUrl(report.getTrackingUrl(), conf));
        if (detach) {
          out.println(appId + " is running; the client detaches. Follow it with:");
          out.println("  yarn application -status " + appId);
          out.println("  yarn logs -applicationId " + appId + "   (once it has ended)");
          return 0;
        }
      }
      if (state == YarnApplicationState.RUNNING) {
        Optional<String> url = AmStatusClient.statusUrl(report.getOriginalTrackingUrl());
        if (url.isPresent()) {
          try {
            JobStatus status = statusClient.fetch(url.get());
            progress.status(status).forEach(out::println);
          } catch (IOException e) {
            LOG.debug("No status from the AM of {} yet", appId, e);
          }
        }
      }
      Thread.sleep(pollInterval.toMillis());
    }
  }

  /**
   * The tracking URL to print: the application report's, except that a ResourceManager whose
   * web address was configured with port 0 (MiniYARNCluster, the embedded demo) reports its
   * proxy on port 0 even after its web server took a port. Then the proxy address of the
   * client's configuration ({@code yarn.web-proxy.address}, else the RM's web address), which
   * carries that port, takes its place.
   */
  static String trackingUrl(String reported, Configuration conf) {
    URI url;
    try {
      url = new URI(reported);
    } catch (URISyntaxException e) {
      return reported;
    }
    if (url.getPort() != 0) {
      return reported;
    }
    String proxy = conf.get(YarnConfiguration.PROXY_ADDRESS,
        WebAppUtils.getRMWebAppURLWithoutScheme(conf));
    int colon = proxy.lastIndexOf(':');
    if (colon < 0 || proxy.substring(colon + 1).equals("0")) {
      return reported;
    }
    return url.getScheme() + "://" + proxy + url.getRawPath()
        + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
  }

  /**
   * The line that says the application was submitted; the name and queue come from settings,
   * so a line break or terminal control in them is escaped ({@link LogSafe}).
   */
  static String submittedLine(ApplicationId appId, String name, String queue) {
    return "Submitted " + appId + " (" + LogSafe.text(name) + ") to queue "
        + LogSafe.text(queue);
  }

  private int reportEnd(ApplicationId appId, ApplicationReport report) {
    YarnApplicationState state = report.getYarnApplicationState();
    FinalApplicationStatus finalStatus = report.getFinalApplicationStatus();
    String diagnostics = report.getDiagnostics() == null ? "" : report.getDiagnostics().trim();
    boolean succeeded = state == YarnApplicationState.FINISHED
        && finalStatus == FinalApplicationStatus.SUCCEEDED;
    out.println(appId + " ended: state " + state + ", final status " + finalStatus);
    if (!diagnostics.isEmpty()) {
      (succeeded ? out : err).println(appId + " diagnostics: " + diagnostics);
    }
    return succeeded ? 0 : 1;
  }

  private void deleteStaging(StagingArea staging) {
    try {
      if (!staging.delete()) {
        LOG.warn("Staging directory {} was not deleted", staging.dir());
      }
    } catch (IOException e) {
      LOG.warn("Cannot delete staging directory {}", staging.dir(), e);
    }
  }
}
