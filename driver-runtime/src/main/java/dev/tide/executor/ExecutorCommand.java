package dev.tide.executor;

import java.util.List;

/**
 * The executor process's main class and arguments. The AM wraps them in a java command line
 * ({@code {{JAVA_HOME}}/bin/java -Xmx... <main> <args> 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr}).
 * The secret is not an argument: the executor reads it from its container credentials.
 */
public final class ExecutorCommand {
  public static final String MAIN_CLASS = "dev.tide.executor.ExecutorMain";
  /** Flag whose value ({@code true}) turns on encryption of the RPC and shuffle connections. */
  public static final String NETWORK_CRYPTO_FLAG = "--network-crypto";

  private ExecutorCommand() {}

  /**
   * @param registrationTimeoutMillis how long the executor keeps trying to register
   *     ({@code tide.executor.registrationTimeout} of the application)
   */
  public static List<String> arguments(String driverHost, int driverPort, String executorId,
      String appId, int cores, long registrationTimeoutMillis) {
    return arguments(driverHost, driverPort, executorId, appId, cores, registrationTimeoutMillis,
        false);
  }

  /**
   * As {@link #arguments(String, int, String, String, int, long)}, with
   * {@code --network-crypto true} when the application encrypts its connections
   * ({@code tide.network.crypto.enabled}): the executor must know before it connects.
   */
  public static List<String> arguments(String driverHost, int driverPort, String executorId,
      String appId, int cores, long registrationTimeoutMillis, boolean networkCrypto) {
    if (networkCrypto) {
      List<String> args = new java.util.ArrayList<>(arguments(driverHost, driverPort,
          executorId, appId, cores, registrationTimeoutMillis, false));
      args.add(NETWORK_CRYPTO_FLAG);
      args.add("true");
      return List.copyOf(args);
    }
    return List.of("--driver", driverHost + ":" + driverPort, "--executor-id", executorId,
        "--app-id", appId, "--cores", Integer.toString(cores), "--registration-timeout-ms",
        Long.toString(registrationTimeoutMillis));
  }
}
