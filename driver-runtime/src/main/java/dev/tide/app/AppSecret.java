package dev.tide.app;

import java.io.DataInputStream;
import java.io.IOException;
import java.security.SecureRandom;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The per-application secret. The submission client creates it and puts it in the AM's
 * credentials; the AM passes it on in each executor's credentials and to {@code tide_shuffle}
 * in the service data. It travels only inside YARN's token files, never on a command line.
 * Executors read it with {@link ContainerTokenFile}, which needs no Hadoop classes.
 */
public final class AppSecret {
  /** Alias of the secret in Hadoop {@link Credentials}. */
  public static final Text CREDENTIALS_ALIAS = new Text(ContainerTokenFile.SECRET_ALIAS);
  public static final int LENGTH_BYTES = 32;

  private AppSecret() {}

  public static byte[] generate() {
    byte[] secret = new byte[LENGTH_BYTES];
    new SecureRandom().nextBytes(secret);
    return secret;
  }

  /** The secret from this process's credentials (the container's token file). */
  public static byte[] fromCurrentUser() throws IOException {
    return require(UserGroupInformation.getCurrentUser().getCredentials());
  }

  /** The secret from token storage in any format Hadoop reads, or null if it is not there. */
  static byte[] secretFromTokenStorage(DataInputStream in) throws IOException {
    Credentials credentials = new Credentials();
    credentials.readTokenStorageStream(in);
    return credentials.getSecretKey(CREDENTIALS_ALIAS);
  }

  private static byte[] require(Credentials credentials) throws IOException {
    byte[] secret = credentials.getSecretKey(CREDENTIALS_ALIAS);
    if (secret == null) {
      throw missingSecret();
    }
    return secret;
  }

  static IOException missingSecret() {
    return new IOException("no Tide application secret (" + ContainerTokenFile.SECRET_ALIAS
        + ") in this container's credentials; was it launched by the Tide client/AM?");
  }

  public static Credentials asCredentials(byte[] secret) {
    Credentials credentials = new Credentials();
    credentials.addSecretKey(CREDENTIALS_ALIAS, secret);
    return credentials;
  }
}
