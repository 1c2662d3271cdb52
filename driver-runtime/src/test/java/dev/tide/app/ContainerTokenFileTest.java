package dev.tide.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading the application secret from a container's token file, as an executor does, from files
 * written by Hadoop's own {@link Credentials} (what the NodeManager writes).
 */
class ContainerTokenFileTest {
  @TempDir
  Path dir;

  /** WRITABLE is the format YARN writes; PROTOBUF files are read through Hadoop. */
  @Test
  void secretComesBackFromTheTokenFileInEitherFormat() throws IOException {
    for (Credentials.SerializedFormat format : Credentials.SerializedFormat.values()) {
      byte[] secret = AppSecret.generate();
      Path file = write(AppSecret.asCredentials(secret), format);

      assertArrayEquals(secret, ContainerTokenFile.applicationSecret(file), format.name());
    }
  }

  @Test
  void secretIsFoundAmongTokensAndOtherKeys() throws IOException {
    byte[] secret = new byte[300]; // a length that takes a multi-byte vint
    Arrays.fill(secret, (byte) 7);
    Credentials credentials = new Credentials();
    credentials.addToken(new Text("AMRMToken"), new Token<TokenIdentifier>(
        new byte[200], "password".getBytes(StandardCharsets.UTF_8),
        new Text("YARN_AM_RM_TOKEN"), new Text("127.0.0.1:8030")));
    credentials.addToken(new Text("other"), new Token<>());
    credentials.addSecretKey(new Text("another.key"), new byte[] {1, 2, 3});
    credentials.addSecretKey(AppSecret.CREDENTIALS_ALIAS, secret);
    credentials.addSecretKey(new Text("tide.application.secret.not"), new byte[] {4});
    Path file = write(credentials, Credentials.SerializedFormat.WRITABLE);

    assertArrayEquals(secret, ContainerTokenFile.applicationSecret(file));
  }

  @Test
  void tokenFileWithoutTheSecretSaysWhatIsMissing() throws IOException {
    for (Credentials.SerializedFormat format : Credentials.SerializedFormat.values()) {
      Path file = write(new Credentials(), format);

      IOException e = assertThrows(IOException.class,
          () -> ContainerTokenFile.applicationSecret(file));
      assertTrue(e.getMessage().contains("tide.application.secret"), e.getMessage());
    }
  }

  @Test
  void missingCorruptOrTruncatedTokenFileNamesTheFile() throws IOException {
    Path missing = dir.resolve("no-such-file");
    assertNamesFile(missing);

    assertNamesFile(Files.write(dir.resolve("corrupt"), new byte[] {1, 2, 3}));

    Path whole = write(AppSecret.asCredentials(AppSecret.generate()),
        Credentials.SerializedFormat.WRITABLE);
    byte[] bytes = Files.readAllBytes(whole);
    for (int cut = 0; cut < bytes.length; cut++) {
      assertNamesFile(Files.write(dir.resolve("truncated"), Arrays.copyOf(bytes, cut)));
    }
  }

  @Test
  void variableLengthIntegersMatchHadoops() throws IOException {
    long[] values = {0, 1, -1, 127, -112, -113, 128, 255, 256, -256, 65_536, Integer.MAX_VALUE,
        Integer.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE};
    for (long value : values) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      WritableUtils.writeVLong(new DataOutputStream(bytes), value);
      ByteBuffer in = ByteBuffer.wrap(bytes.toByteArray());
      assertEquals(value, ContainerTokenFile.readVLong(in));
      assertEquals(0, in.remaining(), "all bytes of " + value + " read");
    }
  }

  private void assertNamesFile(Path file) {
    IOException e = assertThrows(IOException.class,
        () -> ContainerTokenFile.applicationSecret(file));
    assertTrue(e.getMessage().contains("cannot read the container's token file " + file),
        e.getMessage());
  }

  private Path write(Credentials credentials, Credentials.SerializedFormat format)
      throws IOException {
    Path file = dir.resolve("container_tokens_" + format);
    try (OutputStream out = Files.newOutputStream(file);
        DataOutputStream data = new DataOutputStream(out)) {
      credentials.writeTokenStorageToStream(data, format);
    }
    return file;
  }
}
