package dev.tide.app;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The application secret as an executor reads it at start: straight from the container's token
 * file ({@code HADOOP_TOKEN_FILE_LOCATION}), without Hadoop's {@code Credentials}. Loading those
 * pulls in Hadoop's {@code Configuration} (its static initialiser, an XML parser) and, through
 * their loggers, the whole logging set-up before the executor has even connected: about 150 ms of
 * a ~350 ms start on a 2-core machine. Here only the JDK is used.
 *
 * <p>Reads the format YARN writes ({@code Credentials#writeTokenStorageToStream}, format
 * {@code WRITABLE}):
 * <pre>
 *   "HDTS" version:u8(0)
 *   tokenCount:vint  { alias:text identifier:vbytes password:vbytes kind:text service:text }*
 *   keyCount:vint    { alias:text key:vbytes }*
 * </pre>
 * where {@code vint} is Hadoop's {@code WritableUtils} variable-length integer and {@code text}
 * and {@code vbytes} are a {@code vint} length then that many bytes. A file in another format
 * (version 1, protobuf) is handed to Hadoop's {@code Credentials} instead.
 */
public final class ContainerTokenFile {
  /** The secret's alias, as a string ({@link AppSecret#CREDENTIALS_ALIAS} is its Hadoop Text). */
  public static final String SECRET_ALIAS = "tide.application.secret";
  private static final byte[] MAGIC = "HDTS".getBytes(StandardCharsets.US_ASCII);
  private static final byte WRITABLE_FORMAT = 0;

  private ContainerTokenFile() {}

  /**
   * The secret from this container's token file. Falls back to the current user's credentials
   * (Hadoop's login) outside a container, where {@code HADOOP_TOKEN_FILE_LOCATION} is not set.
   */
  public static byte[] applicationSecret() throws IOException {
    // A compile-time constant: using it loads no Hadoop class.
    String tokenFile = System.getenv(UserGroupInformation.HADOOP_TOKEN_FILE_LOCATION);
    if (tokenFile == null || tokenFile.isEmpty()) {
      return AppSecret.fromCurrentUser();
    }
    return applicationSecret(Path.of(tokenFile));
  }

  /** The secret from a token file in Hadoop's token-storage format; errors name the file. */
  public static byte[] applicationSecret(Path tokenFile) throws IOException {
    byte[] secret;
    try {
      byte[] bytes = Files.readAllBytes(tokenFile);
      if (bytes.length <= MAGIC.length
          || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
        throw new IOException("not Hadoop token storage (no " + new String(MAGIC,
            StandardCharsets.US_ASCII) + " header)");
      }
      secret = bytes[MAGIC.length] == WRITABLE_FORMAT
          ? secretKey(ByteBuffer.wrap(bytes), SECRET_ALIAS)
          : AppSecret.secretFromTokenStorage(new DataInputStream(new ByteArrayInputStream(bytes)));
    } catch (IOException e) {
      throw new IOException("cannot read the container's token file " + tokenFile + ": " + e,
          e);
    }
    if (secret == null) {
      throw AppSecret.missingSecret();
    }
    return secret;
  }

  /** The key stored under {@code alias} (the last one, as Hadoop's map keeps), or null. */
  private static byte[] secretKey(ByteBuffer file, String alias) throws IOException {
    byte[] wanted = alias.getBytes(StandardCharsets.UTF_8);
    try {
      file.position(MAGIC.length + 1);
      int tokens = readLength(file, "token count");
      for (int i = 0; i < tokens; i++) {
        skip(file, "token alias");
        skip(file, "token identifier");
        skip(file, "token password");
        skip(file, "token kind");
        skip(file, "token service");
      }
      int keys = readLength(file, "secret key count");
      byte[] found = null;
      for (int i = 0; i < keys; i++) {
        byte[] keyAlias = read(file, "secret key alias");
        byte[] key = read(file, "secret key");
        if (Arrays.equals(keyAlias, wanted)) {
          found = key;
        }
      }
      return found;
    } catch (BufferUnderflowException e) {
      throw new EOFException("token storage ends early at byte " + file.position());
    }
  }

  private static byte[] read(ByteBuffer file, String what) throws IOException {
    byte[] bytes = new byte[readLength(file, what)];
    file.get(bytes);
    return bytes;
  }

  private static void skip(ByteBuffer file, String what) throws IOException {
    int length = readLength(file, what);
    if (length > file.remaining()) {
      throw new EOFException(what + " of " + length + " bytes, only " + file.remaining()
          + " left");
    }
    file.position(file.position() + length);
  }

  /** A length or count; either cannot exceed the bytes left, so a larger one means corruption. */
  private static int readLength(ByteBuffer file, String what) throws IOException {
    long value = readVLong(file);
    if (value < 0 || value > file.remaining()) {
      throw new IOException("bad " + what + " " + value + " at byte " + file.position()
          + " (" + file.remaining() + " bytes left)");
    }
    return (int) value;
  }

  /** Hadoop's {@code WritableUtils.readVLong}: one byte for -112..127, else a length prefix. */
  static long readVLong(ByteBuffer in) {
    byte first = in.get();
    if (first >= -112) {
      return first;
    }
    boolean negative = first < -120;
    int length = negative ? -120 - first : -112 - first;
    long value = 0;
    for (int i = 0; i < length; i++) {
      value = (value << 8) | (in.get() & 0xFF);
    }
    return negative ? ~value : value;
  }
}
