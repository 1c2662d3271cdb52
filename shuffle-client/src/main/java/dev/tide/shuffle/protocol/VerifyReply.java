package dev.tide.shuffle.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The answer to a {@link VerifyRequest}: what the block's bytes on the service's disk are now.
 * Payload:
 * <pre>
 *   int64 requestId | int64 length | int64 computedChecksum | int64 storedChecksum
 * </pre>
 * {@code length} is the block's length by the index read from disk again; {@code
 * computedChecksum} the CRC32C (0 .. 2^32-1) of those bytes read from the data file again;
 * {@code storedChecksum} the CRC32C the map task wrote for the block into the index, or -1 when
 * there is none (checksums were off, or the block spans more than one partition). Neither comes
 * from a cache.
 */
public record VerifyReply(long requestId, long length, long computedChecksum,
    long storedChecksum) implements ShuffleMessage {
  public VerifyReply {
    if (length < 0) {
      throw new IllegalArgumentException("negative block length " + length);
    }
    if (computedChecksum < 0 || computedChecksum > 0xffffffffL) {
      throw new IllegalArgumentException("computed checksum " + computedChecksum
          + " is not a CRC32C");
    }
    if (storedChecksum < FetchReply.NO_CHECKSUM || storedChecksum > 0xffffffffL) {
      throw new IllegalArgumentException("stored checksum " + storedChecksum
          + " is neither a CRC32C nor -1");
    }
  }

  /** Whether the index has a checksum for the block and the bytes on disk no longer match it. */
  public boolean damagedOnDisk() {
    return storedChecksum != FetchReply.NO_CHECKSUM && storedChecksum != computedChecksum;
  }

  @Override
  public byte type() {
    return MessageTypes.VERIFY_REPLY;
  }

  @Override
  public int encodedLength() {
    return 8 + 8 + 8 + 8;
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeLong(length);
    buf.writeLong(computedChecksum);
    buf.writeLong(storedChecksum);
  }

  static VerifyReply decode(ByteBuf buf) {
    VerifyReply reply = new VerifyReply(buf.readLong(), buf.readLong(), buf.readLong(),
        buf.readLong());
    ShuffleMessages.requireFullyRead(buf, "VERIFY_REPLY");
    return reply;
  }
}
