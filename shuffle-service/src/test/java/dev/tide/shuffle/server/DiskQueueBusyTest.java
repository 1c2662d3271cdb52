package dev.tide.shuffle.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.protocol.ErrorCode;
import dev.tide.shuffle.protocol.ErrorReply;
import dev.tide.shuffle.protocol.FetchReply;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** A full disk queue is answered BUSY with the retry-after; other connections are served. */
class DiskQueueBusyTest {
  @Test
  void fullDiskQueueIsBusyAndOthersAreServed() {
    ServerPipelineHarness h = new ServerPipelineHarness();
    EmbeddedChannel full = h.newConnection(task -> {
      throw new RejectedExecutionException("queue full");
    });
    EmbeddedChannel fine = h.newConnection();
    try {
      h.authenticate(full);
      h.authenticate(fine);
      byte[] request = ShuffleServerFuzzTest.Ops.fetchFrame(9, ServerPipelineHarness.APP, 1,
          0, 0, 0, 1);
      h.feed(full, request);
      ErrorReply busy = assertInstanceOf(ErrorReply.class, h.drainReplies(full).get(0));
      assertEquals(9, busy.requestId());
      assertEquals(ErrorCode.BUSY, busy.code());
      assertEquals(1000, busy.retryAfterMillis());
      assertTrue(busy.message().contains("disk queue is full"), busy.message());
      assertEquals(1, h.stats.busyReplies());
      assertEquals(0, h.stats.activeFetches());

      h.feed(fine, request);
      List<?> replies = h.drainReplies(fine);
      assertEquals(9, assertInstanceOf(FetchReply.class, replies.get(0)).requestId());
    } finally {
      h.close(full);
      h.close(fine);
    }
  }
}
