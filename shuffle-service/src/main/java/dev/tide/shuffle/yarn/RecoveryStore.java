package dev.tide.shuffle.yarn;

import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBException;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteOptions;

/**
 * Persists the registered applications (id, user, secret) in the NodeManager's recovery dir so
 * a restarted NodeManager serves them again. A LevelDB database ({@code tide_shuffle_state},
 * leveldbjni, which the NodeManager ships for its own state store) with one record per
 * application: key {@code app/<appId>}, value {@code writeUTF(user), int length, secret}, plus a
 * {@code version} record. Writes are synchronous (fsync). The older one-file store
 * ({@code tide_shuffle_apps}) is imported once and deleted. Thread-safe (synchronized).
 */
final class RecoveryStore implements AutoCloseable {
  static final String DB_NAME = "tide_shuffle_state";
  /** The store used before LevelDB; imported once, then deleted. */
  static final String LEGACY_FILE_NAME = "tide_shuffle_apps";
  private static final byte[] VERSION_KEY = bytes("version");
  private static final byte[] VERSION = bytes("1");
  private static final String APP_PREFIX = "app/";
  private static final WriteOptions SYNC = new WriteOptions().sync(true);

  private final Path dir;
  private final DB db;

  /** Opens (creating if missing) the store under {@code recoveryDir}. */
  RecoveryStore(Path recoveryDir) throws IOException {
    this.dir = recoveryDir.resolve(DB_NAME);
    Files.createDirectories(recoveryDir);
    Options options = new Options().createIfMissing(true);
    try {
      db = JniDBFactory.factory.open(dir.toFile(), options);
    } catch (DBException e) {
      throw new IOException("cannot open " + dir, e);
    }
    try {
      byte[] version = db.get(VERSION_KEY);
      if (version == null) {
        db.put(VERSION_KEY, VERSION, SYNC);
      } else if (!Arrays.equals(version, VERSION)) {
        throw new IOException(dir + " has version " + new String(version, StandardCharsets.UTF_8)
            + ", this service reads version 1");
      }
      importLegacy(recoveryDir.resolve(LEGACY_FILE_NAME));
    } catch (IOException | RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /** The database directory (logs). */
  Path location() {
    return dir;
  }

  synchronized List<RegisteredApp> load() throws IOException {
    List<RegisteredApp> apps = new ArrayList<>();
    byte[] prefix = bytes(APP_PREFIX);
    try (DBIterator it = db.iterator()) {
      for (it.seek(prefix); it.hasNext(); it.next()) {
        var entry = it.peekNext();
        String key = new String(entry.getKey(), StandardCharsets.UTF_8);
        if (!key.startsWith(APP_PREFIX)) {
          break;
        }
        try (DataInputStream in = new DataInputStream(
            new java.io.ByteArrayInputStream(entry.getValue()))) {
          String user = in.readUTF();
          byte[] secret = new byte[in.readInt()];
          in.readFully(secret);
          apps.add(new RegisteredApp(key.substring(APP_PREFIX.length()), user, secret));
        } catch (IOException | RuntimeException e) {
          throw new IOException("bad record " + key + " in " + dir, e);
        }
      }
    } catch (DBException e) {
      throw new IOException("cannot read " + dir, e);
    }
    return apps;
  }

  synchronized void put(RegisteredApp app) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeUTF(app.user());
      out.writeInt(app.secret().length);
      out.write(app.secret());
    }
    try {
      db.put(bytes(APP_PREFIX + app.appId()), bytes.toByteArray(), SYNC);
    } catch (DBException e) {
      throw new IOException("cannot write " + app.appId() + " to " + dir, e);
    }
  }

  synchronized void remove(String appId) throws IOException {
    try {
      db.delete(bytes(APP_PREFIX + appId), SYNC);
    } catch (DBException e) {
      throw new IOException("cannot delete " + appId + " from " + dir, e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    db.close();
  }

  private void importLegacy(Path file) throws IOException {
    if (!Files.exists(file)) {
      return;
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
      put(new RegisteredApp(parts[0], parts[1], Base64.getDecoder().decode(parts[2])));
    }
    Files.delete(file);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
