package dev.tide.shuffle.protocol;

import dev.tide.network.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The next bytes of a push's data file. Payload:
 * <pre>
 *   int64 requestId | int64 offset | int64 checksum | int32 length | length bytes
 * </pre>
 * {@code offset} is where the bytes go in the data file: pieces come in order, so it equals the
 * bytes sent before; {@code checksum} is the CRC32C (0 .. 2^32-1) of these bytes as the sender
 * read them from its disk. The receiver checks it, and each segment's CRC32C from the map
 * task's index as the segment completes.
 */
public record PushData(long requestId, long offset, long checksum, byte[] data)
    implements ShuffleMessage {
  public PushData {
    if (offset < 0) {
      throw new IllegalArgumentException("push " + requestId + ": negative offset " + offset);
    }
    if (checksum < 0 || checksum > 0xffffffffL) {
      throw new IllegalArgumentException("push " + requestId + ": checksum " + checksum
          + " is not a CRC32C");
    }
  }

  /** The piece {@code data[from, from + length)} at {@code offset}, with its CRC32C computed. */
  public static PushData of(long requestId, long offset, byte[] data, int from, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, from, length);
    return new PushData(requestId, offset, crc.getValue(),
        Arrays.copyOfRange(data, from, from + length));
  }

  /** Whether the bytes match {@link #checksum}. */
  public boolean intact() {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return crc.getValue() == checksum;
  }

  @Override
  public byte type() {
    return MessageTypes.PUSH_DATA;
  }

  @Override
  public int encodedLength() {
    return 8 + 8 + 8 + 4 + data.length;
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeLong(offset);
    buf.writeLong(checksum);
    buf.writeInt(data.length);
    buf.writeBytes(data);
  }

  static PushData decode(ByteBuf buf) {
    long requestId = buf.readLong();
    long offset = buf.readLong();
    long checksum = buf.readLong();
    int length = buf.readInt();
    if (length < 0 || length != buf.readableBytes()) {
      throw new MalformedFrameException("data length " + length + " does not match "
          + buf.readableBytes() + " remaining bytes");
    }
    byte[] data = new byte[length];
    buf.readBytes(data);
    return new PushData(requestId, offset, checksum, data);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PushData p && p.requestId == requestId && p.offset == offset
        && p.checksum == checksum && Arrays.equals(p.data, data);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(requestId) * 31 + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "PushData[" + requestId + ", at " + offset + ", " + data.length + " bytes]";
  }
}
