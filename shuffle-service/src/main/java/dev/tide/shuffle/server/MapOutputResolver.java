package dev.tide.shuffle.server;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a fetch request into a {@link FetchPlan}: finds each map output by probing every
 * NodeManager local dir at the layout path derived from the registered (user, application) and
 * the integer ids, reads (or reuses) its index, checks the data file is complete, and opens the
 * file regions to send, coalescing consecutive blocks whose ranges are adjacent in one file.
 * Blocking disk work: called on the server's disk threads only. Thread-safe.
 */
final class MapOutputResolver {
  /** Index files above this size (about 16 million partitions) are treated as corrupt. */
  private static final long MAX_INDEX_BYTES = 8L * ((1 << 24) + 1);

  private final List<Path> localDirs;
  private final IndexCache indexCache;
  private final long maxReplyBytes;
  private final DataFiles dataFiles;
  private final Map<String, List<Path>> appDirs = new ConcurrentHashMap<>();

  MapOutputResolver(List<Path> localDirs, IndexCache indexCache, long maxReplyBytes,
      DataFiles dataFiles) {
    this.localDirs = List.copyOf(localDirs);
    this.indexCache = indexCache;
    this.maxReplyBytes = maxReplyBytes;
    this.dataFiles = dataFiles;
  }

  private record MapKey(int shuffleId, int mapId) {}

  /** A located map output (data file and its file key), or why it could not be used. */
  private record MapOutput(Path dataFile, Object dataKey, long[] offsets, String problem) {
    static MapOutput missing(String problem) {
      return new MapOutput(null, null, null, problem);
    }
  }

  FetchPlan plan(RegisteredApp app, List<BlockId> blocks) throws FetchRefusedException {
    Map<MapKey, MapOutput> outputs = new LinkedHashMap<>();
    for (BlockId b : blocks) {
      outputs.computeIfAbsent(new MapKey(b.shuffleId(), b.mapId()), k -> locate(app, k));
    }
    refuseMissing(app, blocks, outputs);

    long[] lengths = new long[blocks.size()];
    long total = 0;
    for (int i = 0; i < blocks.size(); i++) {
      BlockId b = blocks.get(i);
      long[] offsets = outputs.get(new MapKey(b.shuffleId(), b.mapId())).offsets();
      int partitions = offsets.length - 1;
      if (b.reduceEnd() > partitions) {
        throw new FetchRefusedException(ErrorCode.BAD_REQUEST, "block " + describe(b)
            + " of application " + app.appId() + " asks for reduce partitions up to "
            + b.reduceEnd() + " but the map output has " + partitions, List.of(b));
      }
      lengths[i] = offsets[b.reduceEnd()] - offsets[b.reduceStart()];
      total += lengths[i];
    }
    long headerBytes = 1L + 8 + 4 + 8L * blocks.size();
    if (total + headerBytes > maxReplyBytes) {
      throw new FetchRefusedException(ErrorCode.BAD_REQUEST, "reply of " + (total + headerBytes)
          + " bytes for " + blocks.size() + " blocks of application " + app.appId()
          + " exceeds the limit of " + maxReplyBytes + "; fetch fewer blocks per request",
          List.of());
    }
    return new FetchPlan(lengths, openRegions(app, blocks, outputs));
  }

  private void refuseMissing(RegisteredApp app, List<BlockId> blocks,
      Map<MapKey, MapOutput> outputs) throws FetchRefusedException {
    List<BlockId> missing = new ArrayList<>();
    StringJoiner why = new StringJoiner("; ");
    for (Map.Entry<MapKey, MapOutput> e : outputs.entrySet()) {
      if (e.getValue().problem() != null) {
        why.add("shuffle " + e.getKey().shuffleId() + " map " + e.getKey().mapId() + ": "
            + e.getValue().problem());
      }
    }
    for (BlockId b : blocks) {
      if (outputs.get(new MapKey(b.shuffleId(), b.mapId())).problem() != null) {
        missing.add(b);
      }
    }
    if (!missing.isEmpty()) {
      throw new FetchRefusedException(ErrorCode.NOT_FOUND, "map output of application "
          + app.appId() + " not available: " + why, missing);
    }
  }

  private List<FetchPlan.Part> openRegions(RegisteredApp app, List<BlockId> blocks,
      Map<MapKey, MapOutput> outputs) throws FetchRefusedException {
    List<FetchPlan.Part> regions = new ArrayList<>();
    try {
      int i = 0;
      while (i < blocks.size()) {
        BlockId first = blocks.get(i);
        MapOutput out = outputs.get(new MapKey(first.shuffleId(), first.mapId()));
        long start = out.offsets()[first.reduceStart()];
        long end = out.offsets()[first.reduceEnd()];
        int j = i + 1;
        while (j < blocks.size() && sameMap(first, blocks.get(j))
            && out.offsets()[blocks.get(j).reduceStart()] == end) {
          end = out.offsets()[blocks.get(j).reduceEnd()];
          j++;
        }
        if (end > start) {
          regions.add(new FetchPlan.FileRange(open(app, first, out), start, end - start));
        }
        i = j;
      }
      return regions;
    } catch (FetchRefusedException e) {
      new FetchPlan(new long[0], regions).closeAll();
      throw e;
    }
  }

  private DataFiles.Handle open(RegisteredApp app, BlockId b, MapOutput out)
      throws FetchRefusedException {
    Path data = out.dataFile();
    try {
      return dataFiles.acquire(app.appId(), data, out.dataKey());
    } catch (IOException e) {
      throw new FetchRefusedException(ErrorCode.NOT_FOUND, "cannot open map output " + data
          + " of application " + app.appId() + " for block " + describe(b) + ": " + e,
          List.of(b));
    }
  }

  private static boolean sameMap(BlockId a, BlockId b) {
    return a.shuffleId() == b.shuffleId() && a.mapId() == b.mapId();
  }

  private MapOutput locate(RegisteredApp app, MapKey key) {
    List<Path> appDirs = appDirs(app);
    // The writer places a map output in one of the application's dirs by (shuffle, map): look
    // there first, then in the others (a NodeManager may list its dirs in another order).
    int chosen = ShuffleLayout.dirIndex(key.shuffleId(), key.mapId(), appDirs.size());
    for (int i = 0; i < appDirs.size(); i++) {
      Path appDir = appDirs.get((chosen + i) % appDirs.size());
      Path index = ShuffleLayout.indexFile(appDir, key.shuffleId(), key.mapId());
      BasicFileAttributes attrs;
      try {
        attrs = Files.readAttributes(index, BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        continue;
      } catch (IOException e) {
        return MapOutput.missing("cannot read " + index + ": " + e);
      }
      IndexCache.Key cacheKey = new IndexCache.Key(app.appId(), key.shuffleId(), key.mapId());
      long modified = attrs.lastModifiedTime().toMillis();
      IndexCache.Entry cached = indexCache.get(cacheKey, attrs.fileKey(), attrs.size(), modified);
      try {
        if (cached != null) {
          // Same index, so same data file: its size from the open file if it is still open
          // (an fstat, no path lookup), else from the file system.
          long size = dataFiles.sizeIfOpen(app.appId(), cached.dataFile(), cached.dataFileKey());
          if (size < 0) {
            size = Files.size(cached.dataFile());
          }
          return checkedComplete(cached.dataFile(), cached.dataFileKey(), cached.offsets(), size,
              cacheKey);
        }
        Path data = ShuffleLayout.dataFile(appDir, key.shuffleId(), key.mapId());
        long[] offsets = readIndex(index, attrs.size());
        BasicFileAttributes dataAttrs = Files.readAttributes(data, BasicFileAttributes.class);
        indexCache.put(cacheKey, new IndexCache.Entry(attrs.fileKey(), attrs.size(), modified,
            offsets, data, dataAttrs.fileKey()));
        return checkedComplete(data, dataAttrs.fileKey(), offsets, dataAttrs.size(), cacheKey);
      } catch (NoSuchFileException e) {
        return MapOutput.missing("file " + e.getFile() + " is missing");
      } catch (IOException e) {
        return MapOutput.missing("cannot read map output at " + index + ": " + e.getMessage());
      }
    }
    return MapOutput.missing("no index file in any of " + localDirs.size() + " local dirs");
  }

  private MapOutput checkedComplete(Path data, Object dataKey, long[] offsets, long dataSize,
      IndexCache.Key cacheKey) {
    long needed = offsets[offsets.length - 1];
    if (dataSize < needed) {
      indexCache.remove(cacheKey);
      return MapOutput.missing("data file " + data + " is truncated (" + dataSize + " of "
          + needed + " bytes)");
    }
    return new MapOutput(data, dataKey, offsets, null);
  }

  /** The application's dir under each local dir, built once per application. */
  private List<Path> appDirs(RegisteredApp app) {
    List<Path> dirs = appDirs.get(app.appId());
    if (dirs == null) {
      List<Path> built = new ArrayList<>(localDirs.size());
      for (Path localDir : localDirs) {
        built.add(ShuffleLayout.appLocalDir(localDir, app.user(), app.appId()));
      }
      dirs = List.copyOf(built);
      appDirs.put(app.appId(), dirs);
    }
    return dirs;
  }

  /** Forgets what was derived for an application that stopped. */
  void forgetApplication(String appId) {
    appDirs.remove(appId);
  }

  private static long[] readIndex(Path index, long size) throws IOException {
    if (size < 16 || size % 8 != 0 || size > MAX_INDEX_BYTES) {
      throw new IOException("index " + index + " has an invalid size of " + size + " bytes");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) size);
    try (FileChannel ch = FileChannel.open(index, StandardOpenOption.READ)) {
      while (buf.hasRemaining()) {
        if (ch.read(buf) < 0) {
          throw new IOException("index " + index + " shrank while being read");
        }
      }
    }
    buf.flip();
    long[] offsets = new long[(int) (size / 8)];
    for (int i = 0; i < offsets.length; i++) {
      offsets[i] = buf.getLong();
      if ((i == 0 && offsets[0] != 0) || (i > 0 && offsets[i] < offsets[i - 1])) {
        throw new IOException("index " + index + " is corrupt at entry " + i);
      }
    }
    return offsets;
  }

  static String describe(BlockId b) {
    return b.shuffleId() + "/" + b.mapId() + "/[" + b.reduceStart() + "," + b.reduceEnd() + ")";
  }
}
