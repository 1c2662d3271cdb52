package dev.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import javax.crypto.AEADBadTagException;

/**
 * Inbound half of an encrypted connection: splits the byte stream into records
 * ({@link RecordCipher}), opens each and passes its plaintext on (to the {@link FrameDecoder}).
 * A length prefix above {@link RecordCipher#MAX_RECORD_LENGTH} is refused before anything of the
 * record is buffered; a record that fails its tag ends the connection. Either way the peer is
 * told nothing: one line is logged (naming the peer, the application and what failed), a
 * {@link RecordCryptoException} is fired to the protocol handlers (which fail what waited on
 * the connection with its message) and the channel is closed; nothing more is read from it.
 * Bytes that arrived before this handler was installed (read together with the handshake's last
 * frame) are passed in through the constructor and opened first. One instance per channel.
 */
final class RecordOpener extends ByteToMessageDecoder {
  private final RecordCipher cipher;
  private final String appId;
  private final ThrottledLog failures;
  private final byte[] record = new byte[RecordCipher.MAX_RECORD_LENGTH];
  private ByteBuf early;
  private boolean failed;
  private String peer;

  /**
   * @param early bytes already received after the handshake (owned by this handler), or null
   * @param failures where failures are logged (a peer can cause them)
   */
  RecordOpener(byte[] key, String appId, ByteBuf early, ThrottledLog failures) {
    this.cipher = RecordCipher.opener(key);
    this.appId = appId;
    this.early = early;
    this.failures = failures;
    setDiscardAfterReads(1); // as FrameDecoder: the buffer never holds more than a record + a read
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    peer = ClientHandshakeHandler.describe(ctx.channel().remoteAddress());
    if (early != null) {
      // On the event loop, after the handshake frame's own processing: before any later read,
      // which the channel delivers only once the current read has been handled.
      ctx.executor().execute(() -> {
        if (early != null) {
          ByteBuf bytes = early;
          early = null;
          try {
            channelRead(ctx, bytes);
            channelReadComplete(ctx);
          } catch (Exception e) {
            ctx.fireExceptionCaught(e);
          }
        }
      });
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (early != null && msg instanceof ByteBuf buf) {
      ByteBuf first = early;
      early = null;
      msg = Unpooled.wrappedBuffer(first, buf);
    }
    super.channelRead(ctx, msg);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (early != null) {
      early.release();
      early = null;
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < RecordCipher.HEADER_BYTES) {
      return;
    }
    int length = in.getInt(in.readerIndex());
    if (length <= RecordCipher.TAG_BYTES || length > RecordCipher.MAX_RECORD_LENGTH) {
      fail(ctx, in, "oversized encrypted records", "a record length of " + length
          + " bytes (records carry " + (RecordCipher.TAG_BYTES + 1) + " to "
          + RecordCipher.MAX_RECORD_LENGTH + "); the connection is out of step or not encrypted");
      return;
    }
    if (in.readableBytes() < RecordCipher.HEADER_BYTES + length) {
      return;
    }
    long number = cipher.recordNumber();
    in.skipBytes(RecordCipher.HEADER_BYTES);
    in.readBytes(record, 0, length);
    ByteBuf plain = ctx.alloc().heapBuffer(length - RecordCipher.TAG_BYTES);
    try {
      int n = cipher.open(length, record, 0, plain.array(),
          plain.arrayOffset() + plain.writerIndex());
      plain.writerIndex(plain.writerIndex() + n);
      out.add(plain);
    } catch (AEADBadTagException e) {
      plain.release();
      fail(ctx, in, "encrypted records failing authentication", "record " + number
          + " failed authentication (tampered, replayed, reordered, cut, or sealed under"
          + " another key)");
    }
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    decode(ctx, in, out);
    if (!failed && in.isReadable()) {
      fail(ctx, in, "encrypted records cut short", "the connection ended inside record "
          + cipher.recordNumber() + " (" + in.readableBytes() + " bytes of it received)");
    }
  }

  private void fail(ChannelHandlerContext ctx, ByteBuf in, String kind, String what) {
    failed = true;
    in.skipBytes(in.readableBytes());
    failures.warn(kind, "closing encrypted connection with {} (application {}): {}", peer,
        LogSafe.text(appId), what);
    ctx.fireExceptionCaught(new RecordCryptoException("encrypted connection with " + peer
        + " (application " + appId + ") closed: " + what));
    ctx.close();
  }
}
