package dev.tide.shuffle.client;

import dev.tide.network.FrameDecoder;
import dev.tide.network.HandshakeCompletedEvent;
import dev.tide.network.MalformedFrameException;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.FetchRequest;
import dev.tide.shuffle.protocol.MigrateReply;
import dev.tide.shuffle.protocol.PushReply;
import dev.tide.shuffle.protocol.ShuffleMessage;
import dev.tide.shuffle.protocol.ShuffleMessages;
import dev.tide.shuffle.protocol.VerifyReply;
import dev.tide.shuffle.protocol.VerifyRequest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Matches replies to outstanding requests of one client connection by request id. Requests
 * are registered from any thread ({@link #send}); replies, errors, idle timeouts and the close
 * complete them on the event loop. Once the connection is gone every outstanding request fails.
 * When the handshake completes it swaps the connection's frame decoder for a
 * {@link ReplyStreamDecoder}, which hands it each reply piece by piece; the request's
 * {@link ReplySink} takes the pieces (copies them into arrays, or passes them to a
 * {@link BlockReader}).
 */
final class FetchResponseHandler extends ChannelInboundHandlerAdapter {
  /** An outstanding request: where its reply goes and who waits for it. */
  private record Pending<T>(ReplySink<T> sink, CompletableFuture<T> result) {
    void finish() {
      result.complete(sink.finish());
    }

    void fail(FetchFailure failure) {
      result.completeExceptionally(failure);
    }
  }

  private final Map<Long, Pending<?>> pending = new ConcurrentHashMap<>();
  /** Outstanding requests answered by one small message (verify, migrate, push). */
  private final Map<Long, CompletableFuture<ShuffleMessage>> awaiting = new ConcurrentHashMap<>();
  /** The request whose reply is streaming in now (event loop only). */
  private Pending<?> receiving;
  private volatile Channel channel;

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    channel = ctx.channel();
  }

  /**
   * Sends the request; the future completes with what {@code sink} makes of the reply, or a
   * {@link FetchFailure}.
   */
  <T> CompletableFuture<T> send(FetchRequest request, ReplySink<T> sink) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Channel ch = channel;
    pending.put(request.requestId(), new Pending<>(sink, result));
    // Checked after registering: a close that raced us either sees the entry or left this false.
    if (ch == null || !ch.isActive()) {
      fail(request.requestId(), Reason.CONNECT, "connection is closed");
      return result;
    }
    ch.writeAndFlush(request.toFrame(ch.alloc())).addListener(f -> {
      if (!f.isSuccess()) {
        fail(request.requestId(), Reason.CONNECT, "cannot send request: " + f.cause());
      }
    });
    return result;
  }

  /** Sends a VERIFY_REQUEST; the future completes with its reply or a {@link FetchFailure}. */
  CompletableFuture<VerifyReply> verify(VerifyRequest request) {
    return call(request, VerifyReply.class);
  }

  /**
   * Sends a request answered by one small message ({@link VerifyReply}, {@link MigrateReply},
   * {@link PushReply}); the future completes with it or a {@link FetchFailure} (an ERROR, a
   * reply of another type, the connection lost).
   */
  <T extends ShuffleMessage> CompletableFuture<T> call(ShuffleMessage request, Class<T> replyType) {
    CompletableFuture<ShuffleMessage> result = new CompletableFuture<>();
    Channel ch = channel;
    awaiting.put(request.requestId(), result);
    if (ch == null || !ch.isActive()) {
      fail(request.requestId(), Reason.CONNECT, "connection is closed");
    } else {
      write(request);
    }
    return result.thenApply(reply -> {
      if (!replyType.isInstance(reply)) {
        throw new java.util.concurrent.CompletionException(new FetchFailure(Reason.PROTOCOL,
            "server answered request " + request.requestId() + " with message type "
                + reply.type(), List.of(), null));
      }
      return replyType.cast(reply);
    });
  }

  /**
   * Writes a message that is part of a request already registered with {@link #call} (a push's
   * data); a failed write fails that request. The future completes when the frame was handed to
   * the socket, so a sender can wait on it to follow the peer's pace.
   */
  io.netty.channel.ChannelFuture write(ShuffleMessage message) {
    Channel ch = channel;
    io.netty.channel.ChannelFuture written = ch.writeAndFlush(message.toFrame(ch.alloc()));
    written.addListener(f -> {
      if (!f.isSuccess()) {
        fail(message.requestId(), Reason.CONNECT, "cannot send request: " + f.cause());
      }
    });
    return written;
  }

  /** Closes the connection: every outstanding request on it fails (CONNECT). */
  void closeConnection() {
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ReplyStreamDecoder.ReplyPiece piece) {
      if (receiving != null) {
        try {
          receiving.sink().data(piece.block(), piece.data());
        } catch (RuntimeException e) {
          // The caller's reader failed: its fetch fails, the rest of the reply is skipped.
          receiving.fail(new FetchFailure(Reason.PROTOCOL, "reading block " + piece.block()
              + " of the reply failed: " + e, List.of(), e));
          receiving = null;
        }
      }
      return;
    }
    if (msg instanceof ReplyStreamDecoder.ReplyStart start) {
      receiving = pending.remove(start.header().requestId());
      if (receiving != null) {
        try {
          receiving.sink().receivingOn(ctx.channel());
          receiving.sink().start(start.header().blockLengths(),
              start.header().blockChecksums());
        } catch (RuntimeException e) {
          receiving.fail(new FetchFailure(Reason.PROTOCOL, "starting to read the reply failed: "
              + e, List.of(), e));
          receiving = null;
        }
      }
      return;
    }
    if (msg instanceof ReplyStreamDecoder.ReplyEnd) {
      if (receiving != null) {
        receiving.finish();
        receiving = null;
      }
      return;
    }
    ByteBuf body = (ByteBuf) msg;
    try {
      ShuffleMessage message = ShuffleMessages.decode(body);
      if (message instanceof FetchReply reply) {
        // Only before the stream decoder took over (it streams replies as pieces).
        Pending<?> p = pending.remove(reply.requestId());
        if (p != null) {
          p.sink().start(reply.blockLengths(), reply.blockChecksums());
          for (int i = 0; i < reply.blockCount(); i++) {
            int len = (int) reply.blockLength(i);
            if (len > 0) {
              p.sink().data(i, body.readSlice(len));
            }
          }
          p.finish();
        }
      } else if (message instanceof ErrorReply error) {
        onError(ctx, error);
      } else if (message instanceof VerifyReply || message instanceof MigrateReply
          || message instanceof PushReply) {
        CompletableFuture<ShuffleMessage> waiting = awaiting.remove(message.requestId());
        if (waiting != null) {
          waiting.complete(message);
        }
      } else {
        failAll(Reason.PROTOCOL, "server sent unexpected message type " + message.type());
        ctx.close();
      }
    } catch (MalformedFrameException e) {
      failAll(Reason.PROTOCOL, "malformed reply: " + e.getMessage());
      ctx.close();
    } finally {
      body.release();
    }
  }

  private void onError(ChannelHandlerContext ctx, ErrorReply error) {
    if (error.requestId() == -1) {
      // The server could not read one of our frames, so it cannot say which request it was.
      failAll(Reason.PROTOCOL, "server could not read a request: " + error.message());
      ctx.close();
      return;
    }
    FetchFailure failure = new FetchFailure(reasonFor(error.code()), error.code() + ": "
        + error.message(), error.blocks(), null, error.retryAfterMillis());
    Pending<?> p = pending.remove(error.requestId());
    if (p != null) {
      p.fail(failure);
    }
    CompletableFuture<ShuffleMessage> waiting = awaiting.remove(error.requestId());
    if (waiting != null) {
      waiting.completeExceptionally(failure);
    }
  }

  static Reason reasonFor(ErrorCode code) {
    return switch (code) {
      case NOT_FOUND -> Reason.NOT_FOUND;
      case FORBIDDEN -> Reason.AUTH;
      case BAD_REQUEST -> Reason.PROTOCOL;
      case BUSY -> Reason.BUSY;
      case INTERNAL -> Reason.SERVER_ERROR;
      case CORRUPT -> Reason.CORRUPT;
    };
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof HandshakeCompletedEvent) {
      // From now on only replies arrive: read them block by block as they stream in.
      FrameDecoder frames = ctx.pipeline().get(FrameDecoder.class);
      if (frames != null) {
        ctx.pipeline().replace(frames, "tide-replies",
            new ReplyStreamDecoder(frames.maxFrameBytes()));
      }
      ctx.fireUserEventTriggered(evt);
    } else if (evt instanceof IdleStateEvent && ctx.channel().config().isAutoRead()
        && (!pending.isEmpty() || !awaiting.isEmpty() || receiving != null)) {
      // (not read while paused: the reader's offloaded work holds it back, not the server)
      failAll(Reason.TIMEOUT, "no data from the server for the read timeout");
      ctx.close();
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    failAll(Reason.CONNECT, "connection closed by the server or network");
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    failAll(cause instanceof java.io.IOException ? Reason.CONNECT : Reason.PROTOCOL,
        "connection failed: " + cause);
    ctx.close();
  }

  private void fail(long requestId, Reason reason, String message) {
    Pending<?> p = pending.remove(requestId);
    if (p != null) {
      p.fail(new FetchFailure(reason, message, List.of(), null));
    }
    CompletableFuture<ShuffleMessage> waiting = awaiting.remove(requestId);
    if (waiting != null) {
      waiting.completeExceptionally(new FetchFailure(reason, message, List.of(), null));
    }
  }

  /** Fails every outstanding request, the one being received included (event loop only). */
  private void failAll(Reason reason, String message) {
    if (receiving != null) {
      receiving.fail(new FetchFailure(reason, message + " (in the middle of its reply)",
          List.of(), null));
      receiving = null;
    }
    for (Long id : List.copyOf(pending.keySet())) {
      fail(id, reason, message);
    }
    for (Long id : List.copyOf(awaiting.keySet())) {
      fail(id, reason, message);
    }
  }
}
