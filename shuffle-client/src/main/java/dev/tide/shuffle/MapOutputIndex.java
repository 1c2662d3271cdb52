package dev.tide.shuffle;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The index file of one map output: where each reduce partition's segment lies in the data file
 * and, unless checksums were off when it was written, the CRC32C of each segment. Layout
 * (big-endian):
 * <pre>
 *   "TIDX" | version 1 (byte) | flags (byte; bit 0: segment checksums present) | int32 R |
 *   (R+1) x int64 offset       -- offset[0] = 0, never decreasing; segment r = [offset[r], offset[r+1])
 *   R x int32 crc32c           -- only with flag bit 0
 *   int32 crc32c of every byte before it
 * </pre>
 * A file that does not parse exactly (magic, version, length, its own checksum, offsets) is
 * refused with an {@link IOException} saying what is wrong; there are no older formats to read.
 */
public record MapOutputIndex(long[] offsets, int[] checksums) {
  public static final int VERSION = 1;
  private static final int MAGIC = 0x54494458; // "TIDX"
  private static final int HEADER_BYTES = 4 + 1 + 1 + 4;
  private static final int FLAG_CHECKSUMS = 1;
  /** An index of more partitions is refused (a reduce stage of a million tasks is not sane). */
  public static final int MAX_PARTITIONS = 1 << 20;

  /**
   * @param checksums one CRC32C per partition, or null when checksums are off
   */
  public MapOutputIndex {
    offsets = offsets.clone();
    checksums = checksums == null ? null : checksums.clone();
    if (offsets.length < 2 || (checksums != null && checksums.length != offsets.length - 1)) {
      throw new IllegalArgumentException("an index needs R+1 offsets and R checksums");
    }
  }

  /** An index of consecutive segments of these lengths. */
  public static MapOutputIndex ofLengths(long[] lengths, int[] checksums) {
    long[] offsets = new long[lengths.length + 1];
    for (int i = 0; i < lengths.length; i++) {
      if (lengths[i] < 0) {
        throw new IllegalArgumentException("negative partition length " + lengths[i]);
      }
      offsets[i + 1] = offsets[i] + lengths[i];
    }
    return new MapOutputIndex(offsets, checksums);
  }

  @Override
  public long[] offsets() {
    return offsets.clone();
  }

  @Override
  public int[] checksums() {
    return checksums == null ? null : checksums.clone();
  }

  public int partitions() {
    return offsets.length - 1;
  }

  public long offset(int i) {
    return offsets[i];
  }

  public boolean hasChecksums() {
    return checksums != null;
  }

  /** The CRC32C of partition {@code r}'s segment; only if {@link #hasChecksums()}. */
  public int checksum(int r) {
    return checksums[r];
  }

  /** Bytes of the data file the index accounts for. */
  public long dataLength() {
    return offsets[offsets.length - 1];
  }

  public static long fileLength(int partitions, boolean checksums) {
    return HEADER_BYTES + 8L * (partitions + 1) + (checksums ? 4L * partitions : 0) + 4;
  }

  public byte[] encode() {
    ByteBuffer out = ByteBuffer.allocate((int) fileLength(partitions(), hasChecksums()));
    out.putInt(MAGIC).put((byte) VERSION).put((byte) (hasChecksums() ? FLAG_CHECKSUMS : 0))
        .putInt(partitions());
    for (long offset : offsets) {
      out.putLong(offset);
    }
    if (hasChecksums()) {
      for (int crc : checksums) {
        out.putInt(crc);
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    return out.array();
  }

  /**
   * Parses an index file's bytes.
   *
   * @param source names the file in messages
   * @throws IOException saying what is wrong, if the bytes are not a whole, intact index
   */
  public static MapOutputIndex decode(byte[] bytes, String source) throws IOException {
    if (bytes.length < HEADER_BYTES + 8 * 2 + 4) {
      throw new IOException("index " + source + " is too short (" + bytes.length + " bytes)");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    int magic = in.getInt();
    if (magic != MAGIC) {
      throw new IOException("index " + source + " has no Tide index header (first bytes 0x"
          + Integer.toHexString(magic) + "); it was not written by this version of Tide");
    }
    int version = in.get() & 0xff;
    if (version != VERSION) {
      throw new IOException("index " + source + " has version " + version + "; this service reads"
          + " version " + VERSION);
    }
    int flags = in.get() & 0xff;
    if ((flags & ~FLAG_CHECKSUMS) != 0) {
      throw new IOException("index " + source + " has unknown flags 0x"
          + Integer.toHexString(flags));
    }
    boolean checksummed = (flags & FLAG_CHECKSUMS) != 0;
    int partitions = in.getInt();
    if (partitions < 1 || partitions > MAX_PARTITIONS
        || bytes.length != fileLength(partitions, checksummed)) {
      throw new IOException("index " + source + " is " + bytes.length + " bytes, not the "
          + (partitions < 1 || partitions > MAX_PARTITIONS ? "length of any index"
              : fileLength(partitions, checksummed) + " bytes of an index of " + partitions
              + " partitions") + ": truncated or corrupt");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
    if ((int) crc.getValue() != stored) {
      throw new IOException("index " + source + " fails its checksum (stored 0x"
          + Integer.toHexString(stored) + ", computed 0x" + Long.toHexString(crc.getValue())
          + "): the file is corrupt");
    }
    long[] offsets = new long[partitions + 1];
    for (int i = 0; i <= partitions; i++) {
      offsets[i] = in.getLong();
      if ((i == 0 && offsets[0] != 0) || (i > 0 && offsets[i] < offsets[i - 1])) {
        throw new IOException("index " + source + " is corrupt: offset " + i + " ("
            + offsets[i] + ") " + (i == 0 ? "is not 0" : "is below offset " + (i - 1) + " ("
            + offsets[i - 1] + ")"));
      }
    }
    int[] checksums = null;
    if (checksummed) {
      checksums = new int[partitions];
      for (int i = 0; i < partitions; i++) {
        checksums[i] = in.getInt();
      }
    }
    return new MapOutputIndex(offsets, checksums);
  }
}
