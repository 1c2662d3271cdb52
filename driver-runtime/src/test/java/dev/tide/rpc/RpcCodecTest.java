package dev.tide.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.rpc.MapLocation;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RpcCodecTest {
  /** Encodes a frame, checks its length prefix, and decodes its body. */
  private static RpcMessage roundTrip(RpcMessage message) {
    ByteBuf frame = RpcCodec.encode(ByteBufAllocator.DEFAULT, message);
    try {
      int length = frame.readInt();
      assertEquals(frame.readableBytes(), length, "length prefix counts type byte + payload");
      return RpcCodec.decode(frame);
    } finally {
      frame.release();
    }
  }

  @Test
  void everyMessageRoundTrips() {
    TaskDescription reduce = new TaskDescription(7, TaskDescription.Kind.REDUCE, 2, 2, 3,
        "a.Reducer", new byte[] {1, 2}, List.of("h1", "h2"), List.of(
            new TaskDescription.ShuffleInput(0, List.of(new MapLocation(0, "h1", 7447),
                new MapLocation(5, "h2", 7448))),
            new TaskDescription.ShuffleInput(1, List.of(new MapLocation(1, "h3", 7449)))),
        4, dev.tide.driver.job.JobPlan.Partitioning.range(List.of(new byte[] {5})), "hdfs:///o",
        new TaskDescription.DatasetBlock("points", "a.Parse", true), new byte[] {4, 2});
    assertEquals(new RpcMessage.RegisterExecutor("12", "node-1", 4, 412),
        roundTrip(new RpcMessage.RegisterExecutor("12", "node-1", 4, 412)));
    assertArrayEquals(new byte[] {9, 8, 7},
        ((RpcMessage.Registered) roundTrip(new RpcMessage.Registered(new byte[] {9, 8, 7})))
            .jobConf());
    assertEquals(new RpcMessage.RegisterRejected("no"),
        roundTrip(new RpcMessage.RegisterRejected("no")));
    TaskDescription decoded =
        ((RpcMessage.LaunchTask) roundTrip(new RpcMessage.LaunchTask(reduce))).task();
    assertEquals(reduce.inputs(), decoded.inputs());
    assertEquals(4, decoded.outputPartitions());
    assertEquals(reduce.dataset(), decoded.dataset());
    assertArrayEquals(reduce.spec(), decoded.spec());
    assertEquals(reduce.outputPartitioning().partitionerClass(),
        decoded.outputPartitioning().partitionerClass());
    assertArrayEquals(reduce.outputPartitioning().spec(), decoded.outputPartitioning().spec());
    assertEquals(reduce.preferredHosts(), decoded.preferredHosts());
    assertArrayEquals(reduce.splitPayload(), decoded.splitPayload());
    assertEquals(reduce.describe(), decoded.describe());
    assertEquals(reduce.outputPath(), decoded.outputPath());
    TaskOutcome fetchFailed = new TaskOutcome(7, TaskOutcome.State.FETCH_FAILED, "gone", "h2",
        7448, false, 1, List.of(5, 6), Map.of("bytesFetched", 10L), "disk");
    assertEquals(fetchFailed,
        ((RpcMessage.TaskStatus) roundTrip(new RpcMessage.TaskStatus(fetchFailed))).outcome());
    assertEquals(new RpcMessage.Shutdown("bye"), roundTrip(new RpcMessage.Shutdown("bye")));
  }

  @Test
  void aHeartbeatRoundTripsWithItsRunningTasksAndItsBytesAreAsDocumented() {
    RpcMessage.Heartbeat beat = new RpcMessage.Heartbeat("12", List.of(7L, 1L << 40));
    assertEquals(beat, roundTrip(beat));
    assertEquals(new RpcMessage.Heartbeat("3", List.of()),
        roundTrip(new RpcMessage.Heartbeat("3", List.of())));
    ByteBuf frame = RpcCodec.encode(ByteBufAllocator.DEFAULT, beat);
    try {
      byte[] bytes = new byte[frame.readableBytes()];
      frame.readBytes(bytes);
      // length, type 70, executorId "12", 2 task ids.
      assertArrayEquals(new byte[] {0, 0, 0, 27, 70, 0, 0, 0, 2, '1', '2', 0, 0, 0, 2,
          0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 1, 0, 0, 0, 0, 0}, bytes);
    } finally {
      frame.release();
    }
    // A count of task ids larger than the frame holds is refused before allocating.
    ByteBuf lying = Unpooled.buffer().writeByte(70).writeInt(1).writeByte('x')
        .writeInt(1_000_000);
    IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
        () -> RpcCodec.decode(lying));
    assertTrue(tooMany.getMessage().contains("list count 1000000"), tooMany.getMessage());
  }

  @Test
  void malformedFramesAreRefusedWithAReasonAndNoHugeAllocation() {
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> RpcCodec.decode(Unpooled.wrappedBuffer(new byte[] {120})));
    assertTrue(unknown.getMessage().contains("unknown RPC message type 120"));
    // REGISTER_EXECUTOR whose first string claims 2 GB.
    ByteBuf huge = Unpooled.buffer().writeByte(64).writeInt(Integer.MAX_VALUE);
    IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
        () -> RpcCodec.decode(huge));
    assertTrue(tooLong.getMessage().contains("field length"), tooLong.getMessage());
    ByteBuf truncated = Unpooled.buffer().writeByte(69).writeShort(1);
    assertThrows(IllegalArgumentException.class, () -> RpcCodec.decode(truncated));
    ByteBuf trailing = RpcCodec.encode(ByteBufAllocator.DEFAULT, new RpcMessage.Shutdown("x"));
    trailing.readInt();
    trailing.writeByte(0);
    IllegalArgumentException extra = assertThrows(IllegalArgumentException.class,
        () -> RpcCodec.decode(trailing));
    assertTrue(extra.getMessage().contains("trailing"));
    trailing.release();
  }
}
