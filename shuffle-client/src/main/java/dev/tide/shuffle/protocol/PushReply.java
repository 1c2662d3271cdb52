package dev.tide.shuffle.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The receiving service's confirmation of a push ({@link PushOpen}): every byte arrived, passed
 * its checksums, and the map output is committed (or an intact output of the same map was
 * already committed there). Payload: {@code int64 requestId | int64 dataLength}.
 */
public record PushReply(long requestId, long dataLength) implements ShuffleMessage {
  public PushReply {
    if (dataLength < 0) {
      throw new IllegalArgumentException("negative data length " + dataLength);
    }
  }

  @Override
  public byte type() {
    return MessageTypes.PUSH_REPLY;
  }

  @Override
  public int encodedLength() {
    return 16;
  }

  @Override
  public void encodePayload(ByteBuf buf) {
    buf.writeLong(requestId);
    buf.writeLong(dataLength);
  }

  static PushReply decode(ByteBuf buf) {
    PushReply reply = new PushReply(buf.readLong(), buf.readLong());
    ShuffleMessages.requireFullyRead(buf, "PUSH_REPLY");
    return reply;
  }
}
