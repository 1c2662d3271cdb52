package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import dev.tide.shuffle.testing.MapOutputs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the resolver decides that a cached index is still the one in place: by the index file
 * itself, or by its shuffle dir once that has been left alone (dirs are back-dated here rather
 * than waited for).
 */
class MapOutputResolverTest {
  static final String USER = "alice";
  static final String APP = "application_1700000000000_0001";
  static final int SHUFFLE = 3;
  static final int[][] LENGTHS = {{10, 20, 30}, {1, 2, 3}, {7, 0, 9}};

  @TempDir Path nm1;
  @TempDir Path nm2;
  List<Path> appDirs;
  RegisteredApp app;
  MapOutputResolver resolver;

  @BeforeEach
  void setUp() throws IOException {
    appDirs = List.of(ShuffleLayout.appLocalDir(nm1, USER, APP),
        ShuffleLayout.appLocalDir(nm2, USER, APP));
    app = new RegisteredApp(APP, USER, "secret".getBytes(StandardCharsets.UTF_8));
    resolver = new MapOutputResolver(List.of(nm1, nm2), new IndexCache(1 << 20),
        64L << 20, new DataFiles(16, new ServerStats()), System::currentTimeMillis);
    for (int m = 0; m < LENGTHS.length; m++) {
      MapOutputs.write(appDirs, SHUFFLE, m, LENGTHS[m]);
    }
  }

  private static final List<BlockId> BLOCKS =
      List.of(BlockId.of(SHUFFLE, 0, 1), BlockId.of(SHUFFLE, 1, 2), BlockId.of(SHUFFLE, 2, 0));

  /** The block lengths a request for {@link #BLOCKS} is answered with. */
  private long[] lengths() throws FetchRefusedException {
    FetchPlan plan = resolver.plan(app, BLOCKS);
    plan.closeAll();
    return plan.blockLengths();
  }

  private void backdateShuffleDirs() throws IOException {
    FileTime old = FileTime.fromMillis(
        System.currentTimeMillis() - 10 * MapOutputResolver.SETTLED_MILLIS);
    for (Path appDir : appDirs) {
      Path dir = ShuffleLayout.shuffleDir(appDir, SHUFFLE);
      if (Files.isDirectory(dir)) {
        Files.setLastModifiedTime(dir, old);
      }
    }
  }

  @Test
  void indexesInARecentlyChangedDirAreLookedUpEveryTime() throws Exception {
    assertArrayEquals(new long[] {20, 3, 7}, lengths());
    assertEquals(3, resolver.indexLookups());
    assertArrayEquals(new long[] {20, 3, 7}, lengths());
    assertEquals(6, resolver.indexLookups());
  }

  @Test
  void aSettledDirServesCachedIndexesWithoutLookingThemUp() throws Exception {
    assertArrayEquals(new long[] {20, 3, 7}, lengths());
    assertEquals(3, resolver.indexLookups());
    backdateShuffleDirs();
    // The first request after the dirs settled still looks each index up and records the dir.
    assertArrayEquals(new long[] {20, 3, 7}, lengths());
    assertEquals(6, resolver.indexLookups());
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(new long[] {20, 3, 7}, lengths());
    }
    assertEquals(6, resolver.indexLookups());
  }

  @Test
  void aMapOutputRecommittedInASettledDirIsServedFresh() throws Exception {
    backdateShuffleDirs();
    assertArrayEquals(new long[] {20, 3, 7}, lengths());
    assertArrayEquals(new long[] {20, 3, 7}, lengths());
    long before = resolver.indexLookups();
    Path appDir = ShuffleLayout.chooseAppDir(appDirs, SHUFFLE, 1);
    Files.delete(ShuffleLayout.indexFile(appDir, SHUFFLE, 1));
    Files.delete(ShuffleLayout.dataFile(appDir, SHUFFLE, 1));
    MapOutputs.write(appDir, SHUFFLE, 1, new int[] {4, 5, 66}, 2);
    // Map 1's dir changed: its index is looked up again and the new offsets served.
    assertArrayEquals(new long[] {20, 66, 7}, lengths());
    assertTrue(resolver.indexLookups() > before);
  }

  @Test
  void aMapOutputRemovedFromASettledDirIsReportedMissing() throws Exception {
    backdateShuffleDirs();
    lengths();
    lengths();
    Path appDir = ShuffleLayout.chooseAppDir(appDirs, SHUFFLE, 2);
    Files.delete(ShuffleLayout.indexFile(appDir, SHUFFLE, 2));
    FetchRefusedException e = assertThrows(
        FetchRefusedException.class, this::lengths);
    assertTrue(
        e.getMessage().contains("shuffle 3 map 2: no index file"), e.getMessage());
  }
}
