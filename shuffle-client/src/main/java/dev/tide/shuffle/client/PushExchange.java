package dev.tide.shuffle.client;

import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.PushData;
import dev.tide.shuffle.protocol.PushOpen;
import dev.tide.shuffle.protocol.PushReply;
import io.netty.channel.ChannelFuture;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One push of a map output ({@link ShuffleClient#push}): sends PUSH_OPEN, then the data in
 * PUSH_DATA pieces on the calling thread, each once the {@link Throttle} allowed its bytes and the
 * previous piece reached the socket (so the sender never holds more than one piece and follows
 * the slower of the rate and the peer), and stops early when the receiver already answered
 * (an ERROR: a checksum failed, the application is unknown). Not thread-safe; one per attempt.
 */
public final class PushExchange implements ShuffleClient.Exchange<PushReply> {
  /** The data file being pushed, read in order. */
  @FunctionalInterface
  public interface Source {
    /** Reads up to {@code buf.length} next bytes into {@code buf}; -1 at the end. */
    int read(byte[] buf) throws IOException;
  }

  /** Bounds the rate of a push: blocks until {@code bytes} more may be sent. */
  @FunctionalInterface
  public interface Throttle {
    void acquire(long bytes) throws InterruptedException;
  }

  private final String appId;
  private final int shuffleId;
  private final int mapId;
  private final long dataLength;
  private final byte[] index;
  private final Source source;
  private final int pieceBytes;
  private final Throttle throttle;
  private boolean started;

  PushExchange(String appId, int shuffleId, int mapId, long dataLength, byte[] index,
      Source source, int pieceBytes, Throttle throttle) {
    if (pieceBytes < 1) {
      throw new IllegalArgumentException("push pieces of " + pieceBytes + " bytes");
    }
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.mapId = mapId;
    this.dataLength = dataLength;
    this.index = index;
    this.source = source;
    this.pieceBytes = pieceBytes;
    this.throttle = throttle;
  }

  @Override
  public CompletableFuture<PushReply> send(FetchResponseHandler handler, long requestId) {
    CompletableFuture<PushReply> reply = handler.call(
        new PushOpen(requestId, appId, shuffleId, mapId, dataLength, index), PushReply.class);
    byte[] buf = new byte[(int) Math.min(pieceBytes, Math.max(1, dataLength))];
    long sent = 0;
    try {
      while (sent < dataLength && !reply.isDone()) {
        byte[] piece = buf.length <= dataLength - sent ? buf : new byte[(int) (dataLength - sent)];
        int n = source.read(piece);
        if (n < 0) {
          throw new IOException("map output " + shuffleId + "/" + mapId + " ended after " + sent
              + " of its " + dataLength + " bytes");
        }
        throttle.acquire(n);
        started = true;
        ChannelFuture written = handler.write(PushData.of(requestId, sent, piece, 0, n));
        sent += n;
        written.await();
      }
    } catch (IOException e) {
      handler.closeConnection(); // the receiver drops the half-received output with it
      return CompletableFuture.failedFuture(new FetchFailure(Reason.PROTOCOL,
          "reading map output " + shuffleId + "/" + mapId + " to push failed: " + e.getMessage(),
          List.of(), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      handler.closeConnection();
      return CompletableFuture.failedFuture(new FetchFailure(Reason.TIMEOUT,
          "interrupted while pushing map output " + shuffleId + "/" + mapId, List.of(), e));
    }
    return reply;
  }

  @Override
  public boolean started() {
    return started;
  }
}
