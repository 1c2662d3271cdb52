package dev.tide.app;

import static dev.tide.conf.ConfigOption.booleanOption;
import static dev.tide.conf.ConfigOption.durationOption;
import static dev.tide.conf.ConfigOption.enumOption;
import static dev.tide.conf.ConfigOption.intOption;
import static dev.tide.conf.ConfigOption.memoryMbOption;
import static dev.tide.conf.ConfigOption.stringOption;

import dev.tide.conf.ConfigOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * The settings that both the driver (and the AM it runs in) and the executors read: one owner,
 * in a package both may use. The executor reads its own in {@code ExecutorOptions}, the driver
 * its own in {@code TideOptions}, whose {@code all()} lists these too.
 */
public final class AppOptions {
  private AppOptions() {}

  public static final ConfigOption<String> JOB_ARGS =
      stringOption("tide.job.args", "", "The job's arguments (set by the client).");
  public static final ConfigOption<Boolean> USER_CLASSPATH_FIRST =
      booleanOption("tide.user.classpath.first", false, "When true, classes of the job's own"
          + " jars (--jar, -libjars) are loaded before Tide's classpath in the ApplicationMaster"
          + " and the executors (as mapreduce.job.user.classpath.first); the JDK, Hadoop and"
          + " Tide's own packages still come from Tide's classpath. When false, the user's jars"
          + " come after Tide's.");
  public static final ConfigOption<Integer> EXECUTOR_CORES =
      intOption("tide.executor.cores", 1, 1, "Task slots (threads) per executor.");
  public static final ConfigOption<Integer> TASK_CPUS =
      intOption("tide.task.cpus", 1, 1, "Cores each task uses.");
  public static final ConfigOption<Integer> EXECUTOR_MEMORY_MB =
      memoryMbOption("tide.executor.memory", "512m", 32,
          "Heap of each executor JVM (512m, 2g; a plain number is MiB).");
  public static final ConfigOption<Duration> EXECUTOR_HEARTBEAT_INTERVAL =
      durationOption("tide.executor.heartbeatInterval", "5s", "How often a registered executor"
          + " tells the driver it is alive (with the task attempts it runs), from a thread of"
          + " its own, so a busy task does not delay it. Must be shorter than"
          + " tide.executor.heartbeatTimeout.")
          .withCheck(d -> !d.isZero(), "must be positive");
  /** Values of {@link #NETWORK_CRYPTO_ENABLED}: auto follows the cluster's security. */
  public enum NetworkCrypto { AUTO, TRUE, FALSE }

  public static final ConfigOption<NetworkCrypto> NETWORK_CRYPTO_ENABLED =
      enumOption("tide.network.crypto.enabled", NetworkCrypto.class, NetworkCrypto.AUTO,
          "Encrypt the shuffle connections and the driver<->executor RPC after their handshake"
          + " (AES-GCM with keys of each connection derived from the application secret;"
          + " shuffle-service/PROTOCOL.md): true, false, or auto (true when"
          + " hadoop.security.authentication is kerberos). The driver then refuses executors"
          + " that do not encrypt; a NodeManager shuffle service from before encryption refuses"
          + " encrypting clients.");

  /** The key that decides what {@code auto} means for {@link #NETWORK_CRYPTO_ENABLED}. */
  public static final String HADOOP_SECURITY_AUTHENTICATION = "hadoop.security.authentication";

  /**
   * Whether the application's connections are encrypted: {@link #NETWORK_CRYPTO_ENABLED}, where
   * {@code auto} (the default) means whether the cluster runs with Kerberos
   * ({@code hadoop.security.authentication=kerberos}).
   */
  public static boolean networkCryptoEnabled(Configuration conf) {
    return switch (NETWORK_CRYPTO_ENABLED.get(conf)) {
      case TRUE -> true;
      case FALSE -> false;
      case AUTO -> "kerberos".equals(conf.getTrimmed(HADOOP_SECURITY_AUTHENTICATION, "simple")
          .toLowerCase(Locale.ROOT));
    };
  }

  public static List<ConfigOption<?>> all() {
    return List.of(JOB_ARGS, USER_CLASSPATH_FIRST, EXECUTOR_CORES, TASK_CPUS, EXECUTOR_MEMORY_MB,
        EXECUTOR_HEARTBEAT_INTERVAL, NETWORK_CRYPTO_ENABLED);
  }
}
