package dev.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
 *
 * <p>Each received byte is copied once, from the socket's read buffer into the record array,
 * and the record is opened from there. (Gathering records in a cumulation buffer first cost two
 * more copies of most bytes: reads of up to 64 KiB almost never hold a whole 64 KiB record, so
 * each read was appended to the cumulation, whose unread rest was moved to its front after the
 * record was taken.) Memory per connection: one record array.
 */
final class RecordOpener extends ChannelInboundHandlerAdapter {
  private final RecordCipher cipher;
  private final String appId;
  private final ThrottledLog failures;
  /** The record being received: its length prefix, then its ciphertext and tag. */
  private final byte[] record = new byte[RecordCipher.HEADER_BYTES
      + RecordCipher.MAX_RECORD_LENGTH];
  /** Bytes of the current record (prefix included) received so far. */
  private int received;
  /** The current record's length prefix once its 4 bytes are in, else -1. */
  private int length = -1;
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
            receive(ctx, bytes);
            ctx.fireChannelReadComplete();
          } catch (RuntimeException e) {
            ctx.fireExceptionCaught(e);
          }
        }
      });
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (early != null) {
      early.release();
      early = null;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (early != null) {
      ByteBuf first = early;
      early = null;
      receive(ctx, first);
    }
    receive(ctx, buf);
  }

  /** Takes the bytes of {@code in} into records, opening each as it completes; releases it. */
  private void receive(ChannelHandlerContext ctx, ByteBuf in) {
    try {
      while (!failed && in.isReadable()) {
        if (length < 0) {
          take(in, RecordCipher.HEADER_BYTES);
          if (received < RecordCipher.HEADER_BYTES) {
            return;
          }
          length = (record[0] & 0xff) << 24 | (record[1] & 0xff) << 16 | (record[2] & 0xff) << 8
              | (record[3] & 0xff);
          if (length <= RecordCipher.TAG_BYTES || length > RecordCipher.MAX_RECORD_LENGTH) {
            fail(ctx, "oversized encrypted records", "a record length of " + length
                + " bytes (records carry " + (RecordCipher.TAG_BYTES + 1) + " to "
                + RecordCipher.MAX_RECORD_LENGTH + "); the connection is out of step or not"
                + " encrypted");
            return;
          }
        }
        take(in, RecordCipher.HEADER_BYTES + length);
        if (received == RecordCipher.HEADER_BYTES + length) {
          open(ctx);
        }
      }
    } finally {
      in.release();
    }
  }

  /** Copies bytes of {@code in} into the record array until it holds {@code upTo} bytes. */
  private void take(ByteBuf in, int upTo) {
    int n = Math.min(upTo - received, in.readableBytes());
    in.readBytes(record, received, n);
    received += n;
  }

  /** Opens the complete record in the array and passes its plaintext on. */
  private void open(ChannelHandlerContext ctx) {
    long number = cipher.recordNumber();
    int sealedLength = length;
    received = 0;
    length = -1;
    ByteBuf plain = ctx.alloc().heapBuffer(sealedLength - RecordCipher.TAG_BYTES);
    try {
      int n = cipher.open(sealedLength, record, RecordCipher.HEADER_BYTES, plain.array(),
          plain.arrayOffset() + plain.writerIndex());
      plain.writerIndex(plain.writerIndex() + n);
    } catch (AEADBadTagException e) {
      plain.release();
      fail(ctx, "encrypted records failing authentication", "record " + number
          + " failed authentication (tampered, replayed, reordered, cut, or sealed under"
          + " another key)");
      return;
    } catch (RuntimeException e) {
      plain.release();
      throw e;
    }
    ctx.fireChannelRead(plain);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!failed && received > 0) {
      fail(ctx, "encrypted records cut short", "the connection ended inside record "
          + cipher.recordNumber() + " (" + received + " bytes of it received)");
    }
    ctx.fireChannelInactive();
  }

  private void fail(ChannelHandlerContext ctx, String kind, String what) {
    failed = true;
    failures.warn(kind, "closing encrypted connection with {} (application {}): {}", peer,
        LogSafe.text(appId), what);
    ctx.fireExceptionCaught(new RecordCryptoException("encrypted connection with " + peer
        + " (application " + appId + ") closed: " + what));
    ctx.close();
  }
}
