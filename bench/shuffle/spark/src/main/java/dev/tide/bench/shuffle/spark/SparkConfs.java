package dev.tide.bench.shuffle.spark;

import dev.tide.bench.shuffle.DataSets;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.spark.network.sasl.SecretKeyHolder;
import org.apache.spark.network.util.MapConfigProvider;
import org.apache.spark.network.util.TransportConf;

/** The Spark transport settings both sides use: defaults, except no fetch retries. */
final class SparkConfs {
  static final SecretKeyHolder SECRETS = new SecretKeyHolder() {
    @Override
    public String getSaslUser(String appId) {
      return "sparkSaslUser";
    }

    @Override
    public String getSecretKey(String appId) {
      return DataSets.APP_ID.equals(appId)
          ? new String(DataSets.SECRET, StandardCharsets.UTF_8) : null;
    }
  };

  private SparkConfs() {}

  /**
   * @param crypto {@code spark.network.crypto.enabled=true}: authentication and encryption by
   *     Spark's AuthEngine (its default cipher) instead of SASL without encryption
   */
  static TransportConf conf(boolean crypto) {
    // Retries would hide failures from the benchmark; every failure must fail the run.
    return new TransportConf("shuffle", new MapConfigProvider(Map.of(
        "spark.shuffle.io.maxRetries", "0",
        "spark.network.crypto.enabled", Boolean.toString(crypto))));
  }

  /** Whether the run's options ask for {@code crypto=on}. */
  static boolean crypto(Map<String, String> args) {
    return args.getOrDefault("crypto", "off").equals("on");
  }
}
