package dev.tide.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShuffleLayoutTest {
  @Test
  void pathsFollowTheLayout() {
    Path appDir = ShuffleLayout.appLocalDir(Path.of("/nm1"), "alice", "application_17_0003");
    assertEquals(Path.of("/nm1/usercache/alice/appcache/application_17_0003"), appDir);
    assertEquals(appDir.resolve("tide-shuffle/4/9.data"), ShuffleLayout.dataFile(appDir, 4, 9));
    assertEquals(appDir.resolve("tide-shuffle/4/9.index"), ShuffleLayout.indexFile(appDir, 4, 9));
  }

  @Test
  void refusesNamesThatCouldEscapeTheDirectory() {
    Path nm = Path.of("/nm1");
    assertThrows(IllegalArgumentException.class, () -> ShuffleLayout.appLocalDir(nm, "..", "application_1_1"));
    assertThrows(IllegalArgumentException.class, () -> ShuffleLayout.appLocalDir(nm, "a/b", "application_1_1"));
    assertThrows(IllegalArgumentException.class, () -> ShuffleLayout.appLocalDir(nm, "alice", "../x"));
    assertThrows(IllegalArgumentException.class, () -> ShuffleLayout.appLocalDir(nm, "alice", "application_1_1/.."));
    assertThrows(IllegalArgumentException.class, () -> ShuffleLayout.dataFile(nm, 1, -1));
  }

  @Test
  void chooseAppDirIsDeterministicAndSpreads() {
    List<Path> dirs = List.of(Path.of("/a"), Path.of("/b"), Path.of("/c"));
    Set<Path> used = new HashSet<>();
    for (int map = 0; map < 30; map++) {
      Path chosen = ShuffleLayout.chooseAppDir(dirs, 2, map);
      assertEquals(chosen, ShuffleLayout.chooseAppDir(List.copyOf(dirs), 2, map));
      used.add(chosen);
    }
    assertEquals(3, used.size());
    assertThrows(IllegalArgumentException.class, () -> ShuffleLayout.chooseAppDir(List.of(), 0, 0));
  }

  @Test
  void metadataRoundTripsThePort() {
    ByteBuffer encoded = ShuffleServiceMetadata.encodePort(40123);
    assertEquals(4, encoded.remaining());
    assertEquals(40123, ShuffleServiceMetadata.decodePort(encoded));
    assertEquals(4, encoded.remaining(), "decoding must not consume the caller's buffer");
    assertEquals(7447, ShuffleServiceMetadata.decodePort(ByteBuffer.wrap(new byte[] {0, 0, 0x1d, 0x17})));
  }

  @Test
  void metadataRejectsWhatIsNotAPort() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShuffleServiceMetadata.decodePort(ByteBuffer.allocate(2)));
    assertTrue(e.getMessage().contains("4 bytes"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> ShuffleServiceMetadata.decodePort(ByteBuffer.allocate(4)));
    assertThrows(IllegalArgumentException.class,
        () -> ShuffleServiceMetadata.decodePort(ByteBuffer.allocate(4).putInt(0, 70000)));
    assertThrows(IllegalArgumentException.class, () -> ShuffleServiceMetadata.decodePort(null));
    assertThrows(IllegalArgumentException.class, () -> ShuffleServiceMetadata.encodePort(0));
  }
}
