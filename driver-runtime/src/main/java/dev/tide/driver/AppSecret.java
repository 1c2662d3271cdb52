package dev.tide.driver;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The per-application secret. The submission client creates it and puts it in the AM's
 * credentials; the AM passes it on in each executor's credentials and to {@code tide_shuffle}
 * in the service data. It travels only inside YARN's token files, never on a command line.
 */
public final class AppSecret {
  /** Alias of the secret in Hadoop {@link Credentials}. */
  public static final Text CREDENTIALS_ALIAS = new Text("tide.application.secret");
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

  /**
   * The secret from the container's token file ({@code HADOOP_TOKEN_FILE_LOCATION}), read
   * directly: an executor needs nothing else from Hadoop security, and logging in a
   * {@link UserGroupInformation} first (configuration, groups, JAAS) only slows its start.
   * Falls back to the current user's credentials outside a container.
   */
  public static byte[] fromContainerTokens() throws IOException {
    String tokenFile = System.getenv(UserGroupInformation.HADOOP_TOKEN_FILE_LOCATION);
    if (tokenFile == null || tokenFile.isEmpty()) {
      return fromCurrentUser();
    }
    return fromTokenFile(Path.of(tokenFile));
  }

  /** The secret from a token file in Hadoop's token-storage format. */
  public static byte[] fromTokenFile(Path tokenFile) throws IOException {
    Credentials credentials = new Credentials();
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(
        Files.newInputStream(tokenFile)))) {
      credentials.readTokenStorageStream(in);
    } catch (IOException e) {
      throw new IOException("cannot read the container's token file " + tokenFile + ": " + e,
          e);
    }
    return require(credentials);
  }

  private static byte[] require(Credentials credentials) throws IOException {
    byte[] secret = credentials.getSecretKey(CREDENTIALS_ALIAS);
    if (secret == null) {
      throw new IOException("no Tide application secret (" + CREDENTIALS_ALIAS
          + ") in this container's credentials; was it launched by the Tide client/AM?");
    }
    return secret;
  }

  public static Credentials asCredentials(byte[] secret) {
    Credentials credentials = new Credentials();
    credentials.addSecretKey(CREDENTIALS_ALIAS, secret);
    return credentials;
  }
}
