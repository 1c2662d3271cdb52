package dev.tide.shuffle.protocol;

import dev.tide.shuffle.transport.Frames;
import dev.tide.shuffle.transport.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Arrays;

/**
 * The successful answer to a {@link FetchRequest}: one frame whose payload is this header
 * followed by the bytes of every block, in request order, back to back.
 * <pre>
 *   int64 requestId | int32 count | count x int64 blockLength | sum(blockLength) bytes of data
 * </pre>
 * The frame's length prefix covers the data, which the server streams as file regions after
 * the in-memory header ({@link #headerFrame}). The record itself is only the header.
 */
public record FetchReply(long requestId, long[] blockLengths) implements ShuffleMessage {
  public FetchReply {
    blockLengths = blockLengths.clone();
    for (long len : blockLengths) {
      if (len < 0) {
        throw new IllegalArgumentException("negative block length " + len);
      }
    }
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
    return 8 + 4 + 8 * blockLengths.length;
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeInt(blockLengths.length);
    for (long len : blockLengths) {
      buf.writeLong(len);
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
    if (count < 0 || (long) count * 8 > buf.readableBytes()) {
      throw new MalformedFrameException("block count " + count + " does not fit the frame");
    }
    long[] lengths = new long[count];
    for (int i = 0; i < count; i++) {
      lengths[i] = buf.readLong();
    }
    FetchReply reply = new FetchReply(requestId, lengths);
    if (reply.dataLength() != buf.readableBytes()) {
      throw new MalformedFrameException("reply " + requestId + " announces " + reply.dataLength()
          + " bytes of data but carries " + buf.readableBytes());
    }
    return reply;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FetchReply r && r.requestId == requestId
        && Arrays.equals(r.blockLengths, blockLengths);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(requestId) * 31 + Arrays.hashCode(blockLengths);
  }

  @Override
  public String toString() {
    return "FetchReply[requestId=" + requestId + ", blockLengths="
        + Arrays.toString(blockLengths) + "]";
  }
}
