package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.security.Credentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the application secret from a container's token file, as an executor does. */
class AppSecretTest {
  @TempDir
  Path dir;

  @Test
  void secretComesBackFromTheTokenFileYarnWrites() throws IOException {
    byte[] secret = AppSecret.generate();
    Path file = write(AppSecret.asCredentials(secret));

    assertArrayEquals(secret, AppSecret.fromTokenFile(file));
  }

  @Test
  void tokenFileWithoutTheSecretSaysWhatIsMissing() throws IOException {
    Path file = write(new Credentials());

    IOException e = assertThrows(IOException.class, () -> AppSecret.fromTokenFile(file));
    assertTrue(e.getMessage().contains("tide.application.secret"), e.getMessage());
  }

  @Test
  void missingOrCorruptTokenFileNamesTheFile() throws IOException {
    Path missing = dir.resolve("no-such-file");
    IOException e = assertThrows(IOException.class, () -> AppSecret.fromTokenFile(missing));
    assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());

    Path corrupt = Files.write(dir.resolve("corrupt"), new byte[] {1, 2, 3});
    e = assertThrows(IOException.class, () -> AppSecret.fromTokenFile(corrupt));
    assertTrue(e.getMessage().contains(corrupt.toString()), e.getMessage());
  }

  private Path write(Credentials credentials) throws IOException {
    Path file = dir.resolve("container_tokens");
    try (OutputStream out = Files.newOutputStream(file);
        DataOutputStream data = new DataOutputStream(out)) {
      credentials.writeTokenStorageToStream(data);
    }
    return file;
  }
}
