package dev.tide.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** {@code tide.network.crypto.enabled}: auto follows Kerberos; true and false win over it. */
class NetworkCryptoSettingTest {
  private static Configuration conf(String auth, String crypto) {
    Configuration conf = new Configuration(false);
    if (auth != null) {
      conf.set(AppOptions.HADOOP_SECURITY_AUTHENTICATION, auth);
    }
    if (crypto != null) {
      conf.set(AppOptions.NETWORK_CRYPTO_ENABLED.key(), crypto);
    }
    return conf;
  }

  @Test
  void autoIsOnExactlyWithKerberos() {
    assertFalse(AppOptions.networkCryptoEnabled(conf(null, null)));
    assertFalse(AppOptions.networkCryptoEnabled(conf("simple", null)));
    assertTrue(AppOptions.networkCryptoEnabled(conf("kerberos", null)));
    assertTrue(AppOptions.networkCryptoEnabled(conf("Kerberos", "auto")));
    // the template conf/tide-site.xml sets every key to its default: that must not turn it off
    assertTrue(AppOptions.networkCryptoEnabled(conf("kerberos",
        AppOptions.NETWORK_CRYPTO_ENABLED.defaultText())));
  }

  @Test
  void trueAndFalseOverrideTheCluster() {
    assertTrue(AppOptions.networkCryptoEnabled(conf("simple", "true")));
    assertFalse(AppOptions.networkCryptoEnabled(conf("kerberos", "false")));
    assertTrue(AppOptions.networkCryptoEnabled(conf(null, "TRUE")));
  }

  @Test
  void aBadValueNamesTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AppOptions.networkCryptoEnabled(conf(null, "yes")));
    assertTrue(e.getMessage().contains("tide.network.crypto.enabled"), e.getMessage());
  }
}
