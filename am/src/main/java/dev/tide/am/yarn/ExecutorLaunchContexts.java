package dev.tide.am.yarn;

import dev.tide.am.staging.ContainerCommands;
import dev.tide.app.AppOptions;
import dev.tide.app.AppSecret;
import dev.tide.driver.conf.TideOptions;
import dev.tide.executor.ExecutorCommand;
import dev.tide.shuffle.ShuffleServiceMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;

/**
 * Builds the launch context of one executor container: the java command of
 * {@link ExecutorCommand}, the environment of {@link ContainerCommands#environment}, the staged
 * app jar (when staged) and the user's jars, files and archives
 * ({@link dev.tide.am.staging.UserResources}), credentials holding the application secret and
 * the application's delegation tokens ({@link dev.tide.am.security.DelegationTokens#forExecutors}:
 * never the AMRM token), and the secret as service data for {@code tide_shuffle}.
 *
 * <p>Thread-safe; each call returns a fresh context. {@link #updateCredentials} replaces the
 * credentials later executors get (fresh delegation tokens).
 */
public final class ExecutorLaunchContexts {
  private final String appId;
  private final String driverHost;
  private final int driverPort;
  private final int executorCores;
  private final boolean networkCrypto;
  private final long registrationTimeoutMillis;
  private final int executorMemoryMb;
  private final String javaOpts;
  private final Map<String, String> environment;
  private final Map<String, LocalResource> localResources;
  private final byte[] secret;
  private volatile byte[] tokens;

  /** Executors whose credentials hold only the application secret (security off). */
  public ExecutorLaunchContexts(Configuration conf, String appId, String driverHost,
      int driverPort, byte[] secret, Map<String, LocalResource> localResources) {
    this(conf, appId, driverHost, driverPort, secret, localResources,
        AppSecret.asCredentials(secret));
  }

  /**
   * @param localResources what each executor localizes, by name in its working directory: the
   *     staged app jar (absent when containers use {@code tide.yarn.container.classpath}) and
   *     the user's resources
   * @param credentials what each executor's token file holds: the application secret and the
   *     application's delegation tokens, never the AMRM token
   */
  public ExecutorLaunchContexts(Configuration conf, String appId, String driverHost,
      int driverPort, byte[] secret, Map<String, LocalResource> localResources,
      Credentials credentials) {
    this.appId = appId;
    this.driverHost = driverHost;
    this.driverPort = driverPort;
    this.executorCores = AppOptions.EXECUTOR_CORES.get(conf);
    this.networkCrypto = AppOptions.networkCryptoEnabled(conf);
    this.registrationTimeoutMillis =
        TideOptions.EXECUTOR_REGISTRATION_TIMEOUT.get(conf).toMillis();
    this.executorMemoryMb = AppOptions.EXECUTOR_MEMORY_MB.get(conf);
    this.javaOpts = TideOptions.EXECUTOR_JAVA_OPTS.get(conf);
    this.environment = ContainerCommands.environment(conf, ContainerCommands.EXECUTOR_ENV_PREFIX);
    this.localResources = Map.copyOf(localResources);
    this.secret = secret.clone();
    this.tokens = serialize(credentials);
  }

  /** The credentials of executors launched from now on. */
  public void updateCredentials(Credentials credentials) {
    this.tokens = serialize(credentials);
  }

  /** The java command line of executor {@code executorId}. */
  public String command(String executorId) {
    List<String> args = ExecutorCommand.arguments(driverHost, driverPort, executorId, appId,
        executorCores, registrationTimeoutMillis, networkCrypto);
    return ContainerCommands.javaCommand(executorMemoryMb, javaOpts, ExecutorCommand.MAIN_CLASS,
        args);
  }

  public ContainerLaunchContext create(String executorId) {
    Map<String, ByteBuffer> serviceData =
        Map.of(ShuffleServiceMetadata.SERVICE_NAME, ByteBuffer.wrap(secret.clone()));
    return ContainerLaunchContext.newInstance(localResources, environment,
        List.of(command(executorId)), serviceData, ByteBuffer.wrap(tokens.clone()), null);
  }

  /** Credentials in the token-file format YARN hands to containers. */
  public static byte[] serialize(Credentials credentials) {
    try (DataOutputBuffer out = new DataOutputBuffer()) {
      credentials.writeTokenStorageToStream(out);
      byte[] bytes = new byte[out.getLength()];
      System.arraycopy(out.getData(), 0, bytes, 0, out.getLength());
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize container credentials", e);
    }
  }
}
