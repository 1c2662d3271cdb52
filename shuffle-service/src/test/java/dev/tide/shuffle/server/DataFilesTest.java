package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Shared, reference-counted open data files. */
class DataFilesTest {
  @TempDir Path dir;
  private final ServerStats stats = new ServerStats();

  @Test
  void repliesShareOneOpenFileThatStaysOpenWhenIdle() throws IOException {
    DataFiles files = new DataFiles(4, stats);
    Path f = file("a", "abc");
    DataFiles.Handle first = files.acquire("app1", f, key(f));
    DataFiles.Handle second = files.acquire("app1", f, key(f));
    assertSame(first, second);
    assertEquals(1, stats.openFiles());

    first.release();
    second.release();
    assertEquals(0, stats.openFiles());
    assertEquals(1, stats.idleOpenFiles());
    assertTrue(first.channel().isOpen(), "kept open for the next reply");

    DataFiles.Handle again = files.acquire("app1", f, key(f));
    assertSame(first, again);
    assertEquals(0, stats.idleOpenFiles());
    again.release();
  }

  @Test
  void leastRecentlyUsedIdleFilesCloseBeyondTheLimit() throws IOException {
    DataFiles files = new DataFiles(2, stats);
    DataFiles.Handle[] h = new DataFiles.Handle[3];
    for (int i = 0; i < 3; i++) {
      Path f = file("m" + i, "x");
      h[i] = files.acquire("app1", f, key(f));
    }
    for (DataFiles.Handle handle : h) {
      handle.release();
    }
    assertFalse(h[0].channel().isOpen(), "the oldest idle file was closed");
    assertTrue(h[1].channel().isOpen());
    assertTrue(h[2].channel().isOpen());
    assertEquals(2, stats.idleOpenFiles());
  }

  @Test
  void aFileWrittenAgainIsOpenedAgainNotServedFromTheOldOne() throws IOException {
    DataFiles files = new DataFiles(4, stats);
    Path f = file("map", "old");
    DataFiles.Handle old = files.acquire("app1", f, key(f));
    old.release();
    Files.delete(f);
    Path rewritten = file("map", "new!");

    DataFiles.Handle fresh = files.acquire("app1", rewritten, key(rewritten));
    assertNotSame(old, fresh);
    ByteBuffer buf = ByteBuffer.allocate(4);
    fresh.channel().read(buf, 0);
    assertEquals("new!", new String(buf.array(), java.nio.charset.StandardCharsets.UTF_8));
    fresh.release();
  }

  @Test
  void forgettingAnApplicationClosesIdleFilesNowAndBusyOnesOnRelease() throws IOException {
    DataFiles files = new DataFiles(4, stats);
    Path idleFile = file("idle", "i");
    Path busyFile = file("busy", "b");
    DataFiles.Handle idle = files.acquire("app1", idleFile, key(idleFile));
    idle.release();
    DataFiles.Handle busy = files.acquire("app1", busyFile, key(busyFile));

    files.forgetApplication("app1");
    assertFalse(idle.channel().isOpen());
    assertTrue(busy.channel().isOpen(), "a reply is still reading it");
    busy.release();
    assertFalse(busy.channel().isOpen());
    assertEquals(0, stats.openFiles());
    assertEquals(0, stats.idleOpenFiles());
    assertThrows(IllegalStateException.class, busy::release, "released too often");
  }

  @Test
  void aMissingFileIsAnIOException() {
    DataFiles files = new DataFiles(4, stats);
    assertThrows(NoSuchFileException.class,
        () -> files.acquire("app1", dir.resolve("none"), null));
    assertEquals(0, stats.openFiles());
  }

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private static Object key(Path f) throws IOException {
    return Files.readAttributes(f, BasicFileAttributes.class).fileKey();
  }
}
