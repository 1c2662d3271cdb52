package dev.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Outbound half of an encrypted connection: turns the plaintext byte stream written by the
 * handlers after it ({@code ByteBuf}s and {@code FileRegion}s) into records
 * ({@link RecordCipher}). Writes are queued and packed into records of up to
 * {@link RecordCipher#MAX_PLAINTEXT_BYTES} at each flush; file regions are read one record at a
 * time and only while the channel is writable, so a large reply never sits in memory: memory per
 * connection is one record array plus the records in the channel's outbound buffer. A write's
 * promise completes when the record holding its last byte was written. One instance per channel;
 * runs on its event loop.
 *
 * <p>Per record the bytes are copied once into the record array (file regions read straight
 * into it), sealed there in place, and copied once into a pooled direct buffer, which the
 * transport sends as it is. (Sealing into a fresh heap buffer instead cost an allocated and
 * zeroed 64 KiB array per record, garbage, and the transport's own copy of every heap buffer
 * into native memory.)
 */
final class RecordSealer extends ChannelDuplexHandler {
  private final RecordCipher cipher;
  /**
   * The record being filled: its plaintext from {@link RecordCipher#HEADER_BYTES} on, sealed in
   * place into header, ciphertext and tag.
   */
  private final byte[] record = new byte[RecordCipher.HEADER_BYTES
      + RecordCipher.MAX_PLAINTEXT_BYTES + RecordCipher.TAG_BYTES];
  private int plaintextLength;
  /** Promises of writes whose last byte is in {@link #record}, completed with its record. */
  private final List<ChannelPromise> sealedWithNext = new ArrayList<>();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private boolean flushRequested;
  private boolean draining;

  /** A queued write: a ByteBuf (its readerIndex tracks progress) or a region and its offset. */
  private static final class Pending {
    final Object msg;
    final ChannelPromise promise;
    long regionOffset;

    Pending(Object msg, ChannelPromise promise) {
      this.msg = msg;
      this.promise = promise;
    }
  }

  RecordSealer(byte[] key) {
    this.cipher = RecordCipher.sealer(key);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf || msg instanceof FileRegion) {
      queue.add(new Pending(msg, promise));
    } else {
      ReferenceCountUtil.release(msg);
      promise.tryFailure(new IllegalArgumentException("an encrypted connection sends ByteBufs"
          + " and FileRegions, not " + msg.getClass().getName()));
    }
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    flushRequested = true;
    drain(ctx);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && !queue.isEmpty()) {
      drain(ctx);
    }
    ctx.fireChannelWritabilityChanged();
  }

  /** Seals what is queued, stopping early (until writable again) when the channel is not. */
  private void drain(ChannelHandlerContext ctx) {
    if (draining || !flushRequested) {
      return;
    }
    draining = true;
    try {
      while (true) {
        if (!sealWhileWritable(ctx)) {
          return;
        }
        ctx.flush(); // may make the channel writable again at once (a fast peer)
        if (!ctx.channel().isActive()) {
          failAll(new ClosedChannelException());
          return;
        }
        if (queue.isEmpty()) {
          flushRequested = false;
          return;
        }
        if (!ctx.channel().isWritable()) {
          return; // channelWritabilityChanged goes on
        }
      }
    } finally {
      draining = false;
    }
  }

  /**
   * Packs queued writes into records until the queue is empty or the channel is not writable,
   * then seals what is left over. False if the connection failed (it is being closed).
   */
  private boolean sealWhileWritable(ChannelHandlerContext ctx) {
    while (!queue.isEmpty() && ctx.channel().isActive()) {
      if (!ctx.channel().isWritable() && plaintextLength == 0) {
        break;
      }
      Pending p = queue.peek();
      boolean done;
      try {
        done = p.msg instanceof ByteBuf buf ? take(buf) : take((FileRegion) p.msg, p);
      } catch (IOException | RuntimeException e) {
        queue.poll();
        ReferenceCountUtil.safeRelease(p.msg);
        p.promise.tryFailure(e);
        failAll(e);
        ctx.close();
        return false;
      }
      if (done) {
        queue.poll();
        ReferenceCountUtil.safeRelease(p.msg);
        sealedWithNext.add(p.promise);
      }
      if (plaintextLength == RecordCipher.MAX_PLAINTEXT_BYTES) {
        sealRecord(ctx);
      }
    }
    if (plaintextLength > 0 || !sealedWithNext.isEmpty()) {
      sealRecord(ctx);
    }
    return true;
  }

  /** Moves bytes of {@code buf} into the plaintext; true once all of it is taken. */
  private boolean take(ByteBuf buf) {
    int n = Math.min(buf.readableBytes(), RecordCipher.MAX_PLAINTEXT_BYTES - plaintextLength);
    buf.readBytes(record, RecordCipher.HEADER_BYTES + plaintextLength, n);
    plaintextLength += n;
    return !buf.isReadable();
  }

  /** Reads the region's next bytes into the plaintext; true once all of it is taken. */
  private boolean take(FileRegion region, Pending p) throws IOException {
    long left = region.count() - p.regionOffset;
    int space = RecordCipher.MAX_PLAINTEXT_BYTES - plaintextLength;
    if (left > 0 && space > 0) {
      int want = (int) Math.min(left, space);
      int at = RecordCipher.HEADER_BYTES + plaintextLength;
      int n;
      if (region instanceof FileRegionSource source) {
        n = source.read(ByteBuffer.wrap(record, at, want), p.regionOffset);
      } else {
        n = (int) region.transferTo(new ArrayTarget(at, want), p.regionOffset);
      }
      if (n <= 0) {
        throw new IOException("file region ended " + left + " bytes early (file truncated?)");
      }
      plaintextLength += n;
      p.regionOffset += n;
    }
    return p.regionOffset >= region.count();
  }

  private void sealRecord(ChannelHandlerContext ctx) {
    List<ChannelPromise> promises = sealedWithNext.isEmpty() ? List.of()
        : new ArrayList<>(sealedWithNext);
    sealedWithNext.clear();
    if (plaintextLength == 0) { // only empty writes: nothing to send, they are done
      promises.forEach(ChannelPromise::trySuccess);
      return;
    }
    int n = cipher.seal(record, RecordCipher.HEADER_BYTES, plaintextLength, record, 0);
    plaintextLength = 0;
    ByteBuf sealed = ctx.alloc().directBuffer(n);
    sealed.writeBytes(record, 0, n);
    ChannelPromise written = ctx.newPromise();
    if (!promises.isEmpty()) {
      written.addListener(f -> {
        for (ChannelPromise p : promises) {
          if (f.isSuccess()) {
            p.trySuccess();
          } else {
            p.tryFailure(f.cause());
          }
        }
      });
    }
    ctx.write(sealed, written);
  }

  private void failAll(Throwable cause) {
    for (ChannelPromise p : sealedWithNext) {
      p.tryFailure(cause);
    }
    sealedWithNext.clear();
    Pending p;
    while ((p = queue.poll()) != null) {
      ReferenceCountUtil.safeRelease(p.msg);
      p.promise.tryFailure(cause);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    failAll(new ClosedChannelException());
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    failAll(new ClosedChannelException());
  }

  /** Receives a region's {@code transferTo} into the record array (regions of other kinds). */
  private final class ArrayTarget implements WritableByteChannel {
    private int position;
    private int space;

    ArrayTarget(int position, int space) {
      this.position = position;
      this.space = space;
    }

    @Override
    public int write(ByteBuffer src) {
      int n = Math.min(src.remaining(), space);
      src.get(record, position, n);
      position += n;
      space -= n;
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
