package dev.tide.shuffle.yarn;

import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Persists the registered applications (id, user, secret) in the NodeManager's recovery dir so
 * a restarted NodeManager serves them again. One file, {@code tide_shuffle_apps}, one line per
 * application ({@code appId TAB user TAB base64(secret)}), owner-only permissions, replaced
 * atomically on every change. Thread-safe (synchronized).
 */
final class RecoveryStore {
  static final String FILE_NAME = "tide_shuffle_apps";

  private final Path file;

  RecoveryStore(Path dir) {
    this.file = dir.resolve(FILE_NAME);
  }

  Path file() {
    return file;
  }

  synchronized List<RegisteredApp> load() throws IOException {
    List<RegisteredApp> apps = new ArrayList<>();
    if (!Files.exists(file)) {
      return apps;
    }
    int lineNo = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      lineNo++;
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.split("\t");
      if (parts.length != 3) {
        throw new IOException("line " + lineNo + " of " + file + " is not appId/user/secret");
      }
      apps.add(new RegisteredApp(parts[0], parts[1], Base64.getDecoder().decode(parts[2])));
    }
    return apps;
  }

  synchronized void save(List<RegisteredApp> apps) throws IOException {
    Files.createDirectories(file.getParent());
    StringBuilder text = new StringBuilder();
    for (RegisteredApp app : apps) {
      text.append(app.appId()).append('\t').append(app.user()).append('\t')
          .append(Base64.getEncoder().encodeToString(app.secret())).append('\n');
    }
    Path temp = file.resolveSibling(FILE_NAME + ".tmp");
    Files.deleteIfExists(temp);
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(temp, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
    }
    Files.writeString(temp, text, StandardCharsets.UTF_8);
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
