package dev.tide.shuffle;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Commits one map task attempt's output atomically: the data file is written by the caller to
 * a temporary path, then this class writes the index ({@link MapOutputIndex}: a versioned header,
 * the offsets of each reduce partition's segment, their CRC32Cs, and the index's own CRC32C)
 * and renames both into place. The first attempt to
 * commit wins; later attempts' temporary files are deleted and {@code false} is returned.
 *
 * <p>The index file is the commit marker: once {@code <mapId>.index} exists, the output is
 * committed and is only replaced when it is damaged (its index does not parse, or its data file
 * does not match the index's length or checksums): the map was rerun because a reducer found it
 * so. Attempts of the same map that commit concurrently (threads of
 * one executor, or executors in different JVMs on the same node) are serialized by an in-JVM lock
 * plus an OS file lock on {@code <mapId>.lock}; a crashed attempt releases the OS lock, and its
 * half-renamed data file (no index) is simply replaced by the next attempt.
 *
 * <p>Permissions: directories are created {@code rwxr-x---} and files made {@code rw-r-----} so
 * the NodeManager (which YARN puts in the group of the application's {@code appcache} dir, a
 * set-group-id directory under the LinuxContainerExecutor) can read them and other users cannot.
 * Thread-safe.
 */
public final class MapOutputCommitter {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(MapOutputCommitter.class);
  private static final boolean POSIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  private static final Set<PosixFilePermission> DIR_PERMS = PosixFilePermissions.fromString("rwxr-x---");
  private static final Set<PosixFilePermission> FILE_PERMS = PosixFilePermissions.fromString("rw-r-----");
  // Striped in-JVM locks: FileLock alone throws OverlappingFileLockException within one JVM.
  private static final ReentrantLock[] STRIPES = new ReentrantLock[64];

  static {
    for (int i = 0; i < STRIPES.length; i++) {
      STRIPES[i] = new ReentrantLock();
    }
  }

  private MapOutputCommitter() {}

  /**
   * A fresh temporary data file path for this attempt, in the directory of the final file
   * (created if needed). The file itself is not created; the caller writes it.
   */
  public static Path tempDataFile(Path appLocalDir, int shuffleId, int mapId, long attemptId)
      throws IOException {
    Path dir = ShuffleLayout.shuffleDir(appLocalDir, shuffleId);
    createDirs(appLocalDir, dir);
    return dir.resolve(mapId + ".data.tmp-" + attemptId + "-" + UUID.randomUUID());
  }

  /**
   * @param partitionLengths bytes of each reduce partition's segment, in partition order, as
   *     written consecutively to {@code tempData}
   * @return true if this attempt's output is now the committed one
   * @throws IOException if the temp file does not hold the announced bytes or a rename fails
   */
  public static boolean commit(Path appLocalDir, int shuffleId, int mapId, Path tempData,
      long[] partitionLengths) throws IOException {
    return commit(appLocalDir, shuffleId, mapId, tempData, partitionLengths, null);
  }

  /**
   * As {@link #commit(Path, int, int, Path, long[])}, with the CRC32C of each partition's
   * segment, stored in the index ({@link MapOutputIndex}); null when checksums are off.
   */
  public static boolean commit(Path appLocalDir, int shuffleId, int mapId, Path tempData,
      long[] partitionLengths, int[] partitionChecksums) throws IOException {
    Path data = ShuffleLayout.dataFile(appLocalDir, shuffleId, mapId);
    Path index = ShuffleLayout.indexFile(appLocalDir, shuffleId, mapId);
    Path dir = data.getParent();
    createDirs(appLocalDir, dir);
    long total = 0;
    for (long len : partitionLengths) {
      if (len < 0) {
        throw new IllegalArgumentException("negative partition length " + len + " for map output "
            + shuffleId + "/" + mapId);
      }
      total += len;
    }
    ReentrantLock stripe = STRIPES[Math.floorMod(index.hashCode(), STRIPES.length)];
    stripe.lock();
    try (FileChannel lockFile = FileChannel.open(dir.resolve(mapId + ".lock"),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
         FileLock ignored = lockFile.lock()) {
      if (Files.exists(index)) {
        String damage = damage(index, data);
        if (damage == null) {
          Files.deleteIfExists(tempData);
          return false;
        }
        // A reducer found this output damaged and its map was rerun: replace it.
        LOG.warn("Replacing map output {}/{} in {}: {}", shuffleId, mapId, dir, damage);
      }
      long size = Files.size(tempData);
      if (size != total) {
        throw new IOException("temp data file " + tempData + " holds " + size
            + " bytes but the partition lengths of map output " + shuffleId + "/" + mapId
            + " add up to " + total);
      }
      Path tempIndex = dir.resolve(mapId + ".index.tmp-" + UUID.randomUUID());
      try {
        Files.write(tempIndex, MapOutputIndex.ofLengths(partitionLengths, partitionChecksums)
            .encode(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        setFilePerms(tempData);
        setFilePerms(tempIndex);
        Files.move(tempData, data, StandardCopyOption.ATOMIC_MOVE);
        Files.move(tempIndex, index, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tempIndex);
      }
      return true;
    } finally {
      stripe.unlock();
    }
  }

  /**
   * What is wrong with a committed output, or null if it is intact: the index parses, the data
   * file has its length and every segment its CRC32C. Reads the whole data file: only done when
   * a second attempt of the same map commits, which is rare.
   */
  private static String damage(Path index, Path data) {
    try {
      MapOutputIndex parsed = MapOutputIndex.decode(Files.readAllBytes(index), index.toString());
      if (!Files.exists(data) || Files.size(data) != parsed.dataLength()) {
        return "data file " + data + " is missing or not " + parsed.dataLength() + " bytes";
      }
      if (!parsed.hasChecksums()) {
        return null;
      }
      try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ)) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(1 << 16);
        for (int r = 0; r < parsed.partitions(); r++) {
          java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
          long left = parsed.offset(r + 1) - parsed.offset(r);
          ch.position(parsed.offset(r));
          while (left > 0) {
            buf.clear().limit((int) Math.min(buf.capacity(), left));
            int n = ch.read(buf);
            if (n < 0) {
              return "data file " + data + " ended early";
            }
            buf.flip();
            crc.update(buf);
            left -= n;
          }
          if ((int) crc.getValue() != parsed.checksum(r)) {
            return "segment " + r + " of " + data + " fails its CRC32C";
          }
        }
      }
      return null;
    } catch (IOException e) {
      return e.getMessage();
    }
  }

  /** Creates {@code dir} and any missing parents below {@code base} with owner+group access. */
  private static void createDirs(Path base, Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Files.createDirectories(dir);
    if (POSIX) {
      for (Path p = dir; p != null && !p.equals(base) && p.startsWith(base); p = p.getParent()) {
        try {
          Files.setPosixFilePermissions(p, DIR_PERMS);
        } catch (IOException e) {
          // Another attempt may own it already; access is still governed by the app dir.
        }
      }
    }
  }

  private static void setFilePerms(Path file) throws IOException {
    if (POSIX) {
      Files.setPosixFilePermissions(file, FILE_PERMS);
    }
  }
}
