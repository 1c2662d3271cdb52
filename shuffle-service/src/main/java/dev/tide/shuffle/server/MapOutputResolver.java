package dev.tide.shuffle.server;

import dev.tide.network.LogSafe;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.MapOutputIndex;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.server.ApplicationRegistry.RegisteredApp;
import dev.tide.shuffle.server.IndexCache.DirStamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a fetch request into a {@link FetchPlan}: finds each map output by probing every
 * NodeManager local dir at the layout path derived from the registered (user, application) and
 * the integer ids, reads (or reuses) its index, checks the data file is complete, and opens the
 * file regions to send, coalescing consecutive blocks whose ranges are adjacent in one file.
 *
 * <p>A cached index is reused without looking its file up again while its shuffle dir keeps the
 * modification time it had when the index was last seen in place (the committer only ever
 * renames files into a shuffle dir, which changes that time), once the dir has been left alone
 * for {@link #SETTLED_MILLIS}; so a request for the blocks of many maps costs one lookup of
 * their shuffle dir, not one per index file. Otherwise the index file's own identity decides.
 * Blocking disk work: called on the server's disk threads only. Thread-safe.
 */
final class MapOutputResolver {
  private static final Logger LOG = LoggerFactory.getLogger(MapOutputResolver.class);
  /** Index files above this size are treated as corrupt. */
  private static final long MAX_INDEX_BYTES = MapOutputIndex.fileLength(
      MapOutputIndex.MAX_PARTITIONS, true);

  /**
   * How long a shuffle dir must have been left alone before its modification time stands for
   * its contents: longer than the coarsest timestamp granularity of a local file system (ext3:
   * 1 s) and the kernel's coarse clock.
   */
  static final long SETTLED_MILLIS = 2000;

  private final List<Path> localDirs;
  private final IndexCache indexCache;
  private final long maxReplyBytes;
  private final DataFiles dataFiles;
  private final LongSupplier wallClockMillis;
  private final Map<String, List<Path>> appDirs = new ConcurrentHashMap<>();
  private final LongAdder indexLookups = new LongAdder();
  private static final int MAX_CORRUPT_LOGGED = 10_000;
  private final Set<Path> corruptLogged = ConcurrentHashMap.newKeySet();

  /** @param wallClockMillis the time file systems stamp files with, in epoch milliseconds */
  MapOutputResolver(List<Path> localDirs, IndexCache indexCache, long maxReplyBytes,
      DataFiles dataFiles, LongSupplier wallClockMillis) {
    this.localDirs = List.copyOf(localDirs);
    this.indexCache = indexCache;
    this.maxReplyBytes = maxReplyBytes;
    this.dataFiles = dataFiles;
    this.wallClockMillis = wallClockMillis;
  }

  private record MapKey(int shuffleId, int mapId) {}

  /**
   * A located map output (data file and its file key), or why it could not be used: missing, or
   * corrupt (its index or data file fails validation: the disk damaged it).
   */
  private record MapOutput(Path dataFile, Object dataKey, MapOutputIndex index, String problem,
      boolean corrupt) {
    static MapOutput missing(String problem) {
      return new MapOutput(null, null, null, problem, false);
    }

    static MapOutput corrupt(String problem) {
      return new MapOutput(null, null, null, problem, true);
    }

    long offset(int partition) {
      return index.offset(partition);
    }
  }

  FetchPlan plan(RegisteredApp app, List<BlockId> blocks) throws FetchRefusedException {
    Map<MapKey, MapOutput> outputs = new LinkedHashMap<>();
    Map<Path, Optional<DirStamp>> dirs = new HashMap<>();
    for (BlockId b : blocks) {
      outputs.computeIfAbsent(new MapKey(b.shuffleId(), b.mapId()), k -> locate(app, k, dirs));
    }
    refuseMissing(app, blocks, outputs);

    long[] lengths = new long[blocks.size()];
    long[] checksums = new long[blocks.size()];
    long total = 0;
    for (int i = 0; i < blocks.size(); i++) {
      BlockId b = blocks.get(i);
      MapOutputIndex index = outputs.get(new MapKey(b.shuffleId(), b.mapId())).index();
      int partitions = index.partitions();
      if (b.reduceEnd() > partitions) {
        throw new FetchRefusedException(ErrorCode.BAD_REQUEST, "block " + describe(b)
            + " of application " + app.appId() + " asks for reduce partitions up to "
            + b.reduceEnd() + " but the map output has " + partitions, List.of(b));
      }
      lengths[i] = index.offset(b.reduceEnd()) - index.offset(b.reduceStart());
      // A checksum covers one partition's segment; a block of several has none.
      checksums[i] = index.hasChecksums() && b.reduceEnd() == b.reduceStart() + 1
          ? Integer.toUnsignedLong(index.checksum(b.reduceStart())) : FetchReply.NO_CHECKSUM;
      total += lengths[i];
    }
    long headerBytes = 1L + 8 + 4 + 16L * blocks.size();
    if (total + headerBytes > maxReplyBytes) {
      throw new FetchRefusedException(ErrorCode.BAD_REQUEST, "reply of " + (total + headerBytes)
          + " bytes for " + blocks.size() + " blocks of application " + app.appId()
          + " exceeds the limit of " + maxReplyBytes + "; fetch fewer blocks per request",
          List.of());
    }
    return new FetchPlan(lengths, checksums, openRegions(app, blocks, outputs));
  }

  private void refuseMissing(RegisteredApp app, List<BlockId> blocks,
      Map<MapKey, MapOutput> outputs) throws FetchRefusedException {
    List<BlockId> missing = new ArrayList<>();
    StringJoiner why = new StringJoiner("; ");
    boolean anyCorrupt = false;
    for (Map.Entry<MapKey, MapOutput> e : outputs.entrySet()) {
      if (e.getValue().problem() != null) {
        why.add("shuffle " + e.getKey().shuffleId() + " map " + e.getKey().mapId() + ": "
            + e.getValue().problem());
        anyCorrupt |= e.getValue().corrupt();
      }
    }
    for (BlockId b : blocks) {
      if (outputs.get(new MapKey(b.shuffleId(), b.mapId())).problem() != null) {
        missing.add(b);
      }
    }
    if (!missing.isEmpty()) {
      // CORRUPT when any is corrupt: the client treats both as lost map outputs, and the
      // diagnosis (the disk) matters more than that others were merely missing.
      throw new FetchRefusedException(anyCorrupt ? ErrorCode.CORRUPT : ErrorCode.NOT_FOUND,
          "map output of application " + app.appId() + " not available: " + why, missing);
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
        long start = out.offset(first.reduceStart());
        long end = out.offset(first.reduceEnd());
        int j = i + 1;
        while (j < blocks.size() && sameMap(first, blocks.get(j))
            && out.offset(blocks.get(j).reduceStart()) == end) {
          end = out.offset(blocks.get(j).reduceEnd());
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

  private MapOutput locate(RegisteredApp app, MapKey key, Map<Path, Optional<DirStamp>> dirs) {
    IndexCache.Key cacheKey = new IndexCache.Key(app.appId(), key.shuffleId(), key.mapId());
    IndexCache.Entry known = indexCache.peek(cacheKey);
    if (known != null && known.dirStamp() != null
        && known.dirStamp().equals(settledStamp(known.dataFile().getParent(), dirs))) {
      // Nothing was created, renamed or deleted in its shuffle dir since the index was last
      // seen in place: the same index, without looking the index file up by path again.
      return current(known, cacheKey);
    }
    List<Path> appDirs = appDirs(app);
    // The writer places a map output in one of the application's dirs by (shuffle, map): look
    // there first, then in the others (a NodeManager may list its dirs in another order).
    int chosen = ShuffleLayout.dirIndex(key.shuffleId(), key.mapId(), appDirs.size());
    for (int i = 0; i < appDirs.size(); i++) {
      Path appDir = appDirs.get((chosen + i) % appDirs.size());
      // Stamped before the index is looked at, so a change after the look changes the stamp.
      DirStamp stamp = settledStamp(ShuffleLayout.shuffleDir(appDir, key.shuffleId()), dirs);
      Path index = ShuffleLayout.indexFile(appDir, key.shuffleId(), key.mapId());
      BasicFileAttributes attrs;
      try {
        indexLookups.increment();
        attrs = Files.readAttributes(index, BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        continue;
      } catch (IOException e) {
        return MapOutput.missing("cannot read " + index + ": " + e);
      }
      long modified = attrs.lastModifiedTime().toMillis();
      IndexCache.Entry cached = indexCache.get(cacheKey, attrs.fileKey(), attrs.size(), modified);
      try {
        if (cached != null) {
          if (stamp != null && !stamp.equals(cached.dirStamp())) {
            cached = cached.withDirStamp(stamp);
            indexCache.put(cacheKey, cached);
          }
          return current(cached, cacheKey);
        }
        Path data = ShuffleLayout.dataFile(appDir, key.shuffleId(), key.mapId());
        MapOutputIndex parsed;
        try {
          parsed = readIndex(index, attrs.size());
        } catch (CorruptIndexException e) {
          logCorruptOnce(index, e.getMessage());
          return MapOutput.corrupt(e.getMessage());
        }
        BasicFileAttributes dataAttrs = Files.readAttributes(data, BasicFileAttributes.class);
        indexCache.put(cacheKey, new IndexCache.Entry(attrs.fileKey(), attrs.size(), modified,
            parsed, data, dataAttrs.fileKey(), stamp));
        return checkedComplete(data, dataAttrs.fileKey(), parsed, dataAttrs.size(), cacheKey);
      } catch (NoSuchFileException e) {
        return MapOutput.missing("file " + e.getFile() + " is missing");
      } catch (IOException e) {
        return MapOutput.missing("cannot read map output at " + index + ": " + e.getMessage());
      }
    }
    return MapOutput.missing("no index file in any of " + localDirs.size() + " local dirs");
  }

  /**
   * A map output whose index is known to be in place: same index, so same data file, checked
   * complete by its size from the open file if it is still open (an fstat, no path lookup),
   * else from the file system.
   */
  private MapOutput current(IndexCache.Entry cached, IndexCache.Key cacheKey) {
    try {
      long size = dataFiles.sizeIfOpen(cacheKey.appId(), cached.dataFile(), cached.dataFileKey());
      if (size < 0) {
        size = Files.size(cached.dataFile());
      }
      return checkedComplete(cached.dataFile(), cached.dataFileKey(), cached.index(), size,
          cacheKey);
    } catch (NoSuchFileException e) {
      indexCache.remove(cacheKey);
      return MapOutput.missing("file " + e.getFile() + " is missing");
    } catch (IOException e) {
      return MapOutput.missing("cannot read map output " + cached.dataFile() + ": "
          + e.getMessage());
    }
  }

  /**
   * The stamp of a shuffle dir, once per dir per request, or null when it is missing, has no
   * file key, or changed less than {@link #SETTLED_MILLIS} ago: a change within the file
   * system's timestamp granularity of the one seen could leave the time as it was.
   */
  private DirStamp settledStamp(Path dir, Map<Path, Optional<DirStamp>> dirs) {
    return dirs.computeIfAbsent(dir, d -> {
      try {
        BasicFileAttributes attrs = Files.readAttributes(d, BasicFileAttributes.class);
        FileTime modified = attrs.lastModifiedTime();
        if (attrs.fileKey() == null
            || wallClockMillis.getAsLong() - modified.toMillis() < SETTLED_MILLIS) {
          return Optional.empty();
        }
        return Optional.of(new DirStamp(attrs.fileKey(), modified.to(TimeUnit.NANOSECONDS)));
      } catch (IOException e) {
        return Optional.empty();
      }
    }).orElse(null);
  }

  /** Index files looked up by path so far (tests: the settled-dir path does none). */
  long indexLookups() {
    return indexLookups.sum();
  }

  /** The data file must hold exactly the bytes its index accounts for: never serve past it. */
  private MapOutput checkedComplete(Path data, Object dataKey, MapOutputIndex index,
      long dataSize, IndexCache.Key cacheKey) {
    long needed = index.dataLength();
    if (dataSize != needed) {
      indexCache.remove(cacheKey);
      String problem = "data file " + data + " is " + dataSize + " bytes but its index accounts"
          + " for " + needed + (dataSize < needed ? ": truncated" : ": corrupt");
      logCorruptOnce(data, problem);
      return MapOutput.corrupt(problem);
    }
    return new MapOutput(data, dataKey, index, null, false);
  }

  /** Logs a corrupt map output file once per path (bounded), with what is wrong. */
  private void logCorruptOnce(Path file, String problem) {
    if (corruptLogged.size() < MAX_CORRUPT_LOGGED && corruptLogged.add(file)) {
      LOG.warn("Corrupt map output file {}: {}; fetches of it are refused with CORRUPT and the"
          + " map will be recomputed", LogSafe.text(file.toString()), LogSafe.text(problem));
    }
  }

  /** Where a committed map output's files are. */
  record Located(Path appDir, Path index, Path data) {}

  /**
   * The files of a committed map output (its index exists) of {@code app}, looked up as the
   * writer placed them; null when no local dir holds its index. Paths come from the registered
   * user, the application id and the two ints only.
   */
  Located locateCommitted(RegisteredApp app, int shuffleId, int mapId) {
    List<Path> dirs = appDirs(app);
    int chosen = ShuffleLayout.dirIndex(shuffleId, mapId, dirs.size());
    for (int i = 0; i < dirs.size(); i++) {
      Path appDir = dirs.get((chosen + i) % dirs.size());
      Path index = ShuffleLayout.indexFile(appDir, shuffleId, mapId);
      if (Files.exists(index)) {
        return new Located(appDir, index, ShuffleLayout.dataFile(appDir, shuffleId, mapId));
      }
    }
    return null;
  }

  /**
   * The application's dirs that exist on this node: YARN creates them for the application's
   * containers, so there are none where it never ran one. In the order of the local dirs.
   */
  List<Path> existingAppDirs(RegisteredApp app) {
    List<Path> existing = new ArrayList<>();
    for (Path dir : appDirs(app)) {
      if (Files.isDirectory(dir)) {
        existing.add(dir);
      }
    }
    return existing;
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

  /** Bytes a verification reads from a data file at a time: all it holds in memory. */
  static final int VERIFY_READ_BYTES = 64 * 1024;

  /** What {@link #verify} found: the block's length, its CRC32C now, the index's (-1: none). */
  record Verified(long length, long computedChecksum, long storedChecksum) {}

  /**
   * Reads a block from disk again, bypassing the index cache, and computes its CRC32C: the
   * index file is read and validated anew, the data file must hold exactly what the index
   * accounts for, and the block's range is read through a {@link #VERIFY_READ_BYTES} buffer,
   * never past the file's end. A mismatch with the index's checksum is logged once per file.
   *
   * @param admitRead told the block's length before it is read; returns why it may not be read
   *     now (answered BUSY), or null
   * @param releaseRead told the same length once the read is over (when it was admitted)
   * @throws FetchRefusedException NOT_FOUND (no map output), CORRUPT (index or data file
   *     length fails validation), BAD_REQUEST (range past the partitions), BUSY
   */
  Verified verify(RegisteredApp app, BlockId block, LongFunction<String> admitRead,
      LongConsumer releaseRead) throws FetchRefusedException {
    List<Path> dirs = appDirs(app);
    int chosen = ShuffleLayout.dirIndex(block.shuffleId(), block.mapId(), dirs.size());
    for (int i = 0; i < dirs.size(); i++) {
      Path appDir = dirs.get((chosen + i) % dirs.size());
      Path index = ShuffleLayout.indexFile(appDir, block.shuffleId(), block.mapId());
      long indexSize;
      try {
        indexSize = Files.size(index);
      } catch (NoSuchFileException e) {
        continue;
      } catch (IOException e) {
        throw new FetchRefusedException(ErrorCode.NOT_FOUND, "cannot read " + index + ": " + e,
            List.of(block));
      }
      Path data = ShuffleLayout.dataFile(appDir, block.shuffleId(), block.mapId());
      try {
        return verify(app, block, index, indexSize, data, admitRead, releaseRead);
      } catch (CorruptIndexException e) {
        logCorruptOnce(index, e.getMessage());
        throw new FetchRefusedException(ErrorCode.CORRUPT, e.getMessage(), List.of(block));
      } catch (NoSuchFileException e) {
        throw new FetchRefusedException(ErrorCode.NOT_FOUND, "file " + e.getFile()
            + " is missing", List.of(block));
      } catch (IOException e) {
        throw new FetchRefusedException(ErrorCode.NOT_FOUND, "cannot read map output at "
            + index + ": " + e.getMessage(), List.of(block));
      }
    }
    throw new FetchRefusedException(ErrorCode.NOT_FOUND, "map output of application "
        + app.appId() + " not available: shuffle " + block.shuffleId() + " map "
        + block.mapId() + ": no index file in any of " + localDirs.size() + " local dirs",
        List.of(block));
  }

  private Verified verify(RegisteredApp app, BlockId block, Path index, long indexSize,
      Path data, LongFunction<String> admitRead,
      LongConsumer releaseRead) throws IOException, FetchRefusedException {
    MapOutputIndex parsed = readIndex(index, indexSize);
    if (block.reduceEnd() > parsed.partitions()) {
      throw new FetchRefusedException(ErrorCode.BAD_REQUEST, "block " + describe(block)
          + " of application " + app.appId() + " asks for reduce partitions up to "
          + block.reduceEnd() + " but the map output has " + parsed.partitions(),
          List.of(block));
    }
    long start = parsed.offset(block.reduceStart());
    long end = parsed.offset(block.reduceEnd());
    long stored = parsed.hasChecksums() && block.reduceEnd() == block.reduceStart() + 1
        ? Integer.toUnsignedLong(parsed.checksum(block.reduceStart())) : FetchReply.NO_CHECKSUM;
    String busy = admitRead.apply(end - start);
    if (busy != null) {
      throw new FetchRefusedException(ErrorCode.BUSY, busy, List.of());
    }
    CRC32C crc = new CRC32C();
    try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size != parsed.dataLength()) {
        String problem = "data file " + data + " is " + size + " bytes but its index accounts"
            + " for " + parsed.dataLength() + (size < parsed.dataLength() ? ": truncated"
                : ": corrupt");
        logCorruptOnce(data, problem);
        throw new FetchRefusedException(ErrorCode.CORRUPT, problem, List.of(block));
      }
      ByteBuffer buf = ByteBuffer.allocate((int) Math.min(VERIFY_READ_BYTES,
          Math.max(1, end - start)));
      long at = start;
      while (at < end) {
        buf.clear().limit((int) Math.min(buf.capacity(), end - at));
        int n = ch.read(buf, at);
        if (n < 0) {
          String problem = "data file " + data + " ended at " + at + " while reading block "
              + describe(block) + " up to " + end + ": truncated";
          logCorruptOnce(data, problem);
          throw new FetchRefusedException(ErrorCode.CORRUPT, problem, List.of(block));
        }
        buf.flip();
        crc.update(buf);
        at += n;
      }
    } finally {
      releaseRead.accept(end - start);
    }
    long computed = crc.getValue();
    if (stored != FetchReply.NO_CHECKSUM && computed != stored
        && corruptLogged.size() < MAX_CORRUPT_LOGGED && corruptLogged.add(data)) {
      LOG.warn("Corrupt map output file {}: segment {} (bytes {}..{}) reads with the CRC32C {}"
          + " but its map task wrote {}; the reducer that asked (verify of application {})"
          + " reports the map output lost and the map will be recomputed",
          LogSafe.text(data.toString()), block.reduceStart(), start, end,
          Long.toHexString(computed), Long.toHexString(stored), app.appId());
    }
    return new Verified(end - start, computed, stored);
  }

  /** Forgets what was derived for an application that stopped. */
  void forgetApplication(String appId) {
    appDirs.remove(appId);
  }

  /** An index file that exists but does not parse: the disk damaged it. */
  private static final class CorruptIndexException extends IOException {
    CorruptIndexException(String message) {
      super(message);
    }
  }

  private static MapOutputIndex readIndex(Path index, long size) throws IOException {
    if (size > MAX_INDEX_BYTES) {
      throw new CorruptIndexException("index " + index + " has an invalid size of " + size
          + " bytes");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) size);
    try (FileChannel ch = FileChannel.open(index, StandardOpenOption.READ)) {
      while (buf.hasRemaining()) {
        if (ch.read(buf) < 0) {
          throw new IOException("index " + index + " shrank while being read");
        }
      }
    }
    try {
      return MapOutputIndex.decode(buf.array(), index.toString());
    } catch (IOException e) {
      throw new CorruptIndexException(e.getMessage());
    }
  }

  static String describe(BlockId b) {
    return b.shuffleId() + "/" + b.mapId() + "/[" + b.reduceStart() + "," + b.reduceEnd() + ")";
  }
}
