package dev.tide.shuffle.protocol;

import dev.tide.network.Frames;
import dev.tide.network.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;

/**
 * The successful answer to a {@link FetchRequest}: one frame whose payload is this header
 * followed by the bytes of every block, in request order, back to back.
 * <pre>
 *   int64 requestId | int32 count | count x (int64 blockLength | int64 checksum) |
 *   sum(blockLength) bytes of data
 * </pre>
 * {@code checksum} is the CRC32C of the block's bytes as the map task wrote them (from the map
 * output's index), or -1 when there is none (checksums were off, or the block spans several
 * partitions).
 * The frame's length prefix covers the data, which the server streams as file regions after
 * the in-memory header ({@link #headerFrame}). The record itself is only the header.
 */
public record FetchReply(long requestId, long[] blockLengths, long[] blockChecksums)
    implements ShuffleMessage {
  /** No block has a checksum. */
  public static final long NO_CHECKSUM = -1;

  public FetchReply {
    blockLengths = blockLengths.clone();
    blockChecksums = blockChecksums.clone();
    if (blockChecksums.length != blockLengths.length) {
      throw new IllegalArgumentException(blockLengths.length + " block lengths but "
          + blockChecksums.length + " checksums");
    }
    for (int i = 0; i < blockLengths.length; i++) {
      if (blockLengths[i] < 0) {
        throw new IllegalArgumentException("negative block length " + blockLengths[i]);
      }
      if (blockChecksums[i] < NO_CHECKSUM || blockChecksums[i] > 0xffffffffL) {
        throw new IllegalArgumentException("block checksum " + blockChecksums[i]
            + " is neither a CRC32C nor -1");
      }
    }
  }

  /** A reply whose blocks carry no checksum. */
  public FetchReply(long requestId, long[] blockLengths) {
    this(requestId, blockLengths, noChecksums(blockLengths.length));
  }

  public static long[] noChecksums(int blocks) {
    long[] none = new long[blocks];
    java.util.Arrays.fill(none, NO_CHECKSUM);
    return none;
  }

  @Override
  public long[] blockChecksums() {
    return blockChecksums.clone();
  }

  @Override
  public long[] blockLengths() {
    return blockLengths.clone();
  }

  public int blockCount() {
    return blockLengths.length;
  }

  public long blockLength(int i) {
    return blockLengths[i];
  }

  /** Bytes of block data that follow the header. */
  public long dataLength() {
    long sum = 0;
    for (long len : blockLengths) {
      sum += len;
    }
    return sum;
  }

  @Override
  public byte type() {
    return MessageTypes.FETCH_REPLY;
  }

  /** Length of the header payload only. */
  @Override
  public int encodedLength() {
    return 8 + 4 + 16 * blockLengths.length;
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeInt(blockLengths.length);
    for (int i = 0; i < blockLengths.length; i++) {
      buf.writeLong(blockLengths[i]);
      buf.writeLong(blockChecksums[i]);
    }
  }

  /**
   * The frame's in-memory part: length prefix (counting the data too), type byte and header.
   * The caller must write exactly {@link #dataLength()} bytes after it.
   *
   * @throws IllegalArgumentException if the whole frame would exceed int32
   */
  public ByteBuf headerFrame(ByteBufAllocator alloc) {
    ByteBuf buf = Frames.startWithTrailing(alloc, type(), encodedLength(), dataLength());
    encodePayload(buf);
    return buf;
  }

  /** Not used for replies with data; {@link #headerFrame} is. Allowed for empty replies. */
  @Override
  public ByteBuf toFrame(ByteBufAllocator alloc) {
    if (dataLength() != 0) {
      throw new IllegalStateException("a reply with data is written with headerFrame");
    }
    return headerFrame(alloc);
  }

  /** Decodes the header and checks that exactly the announced data follows. */
  static FetchReply decode(ByteBuf buf) {
    long requestId = buf.readLong();
    int count = buf.readInt();
    if (count < 0 || (long) count * 16 > buf.readableBytes()) {
      throw new MalformedFrameException("block count " + count + " does not fit the frame");
    }
    long[] lengths = new long[count];
    long[] checksums = new long[count];
    for (int i = 0; i < count; i++) {
      lengths[i] = buf.readLong();
      checksums[i] = buf.readLong();
    }
    FetchReply reply;
    try {
      reply = new FetchReply(requestId, lengths, checksums);
    } catch (IllegalArgumentException e) {
      throw new MalformedFrameException("reply " + requestId + ": " + e.getMessage());
    }
    if (reply.dataLength() != buf.readableBytes()) {
      throw new MalformedFrameException("reply " + requestId + " announces " + reply.dataLength()
          + " bytes of data but carries " + buf.readableBytes());
    }
    return reply;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchReply r && r.requestId == requestId
        && Arrays.equals(r.blockLengths, blockLengths)
        && Arrays.equals(r.blockChecksums, blockChecksums);
  }

  @Override
  public int hashCode() {
    return (Long.hashCode(requestId) * 31 + Arrays.hashCode(blockLengths)) * 31
        + Arrays.hashCode(blockChecksums);
  }

  @Override
  public String toString() {
    return "FetchReply[requestId=" + requestId + ", blockLengths="
        + Arrays.toString(blockLengths) + ", blockChecksums="
        + Arrays.toString(blockChecksums) + "]";
  }
}
