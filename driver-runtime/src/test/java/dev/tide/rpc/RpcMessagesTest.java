package dev.tide.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every RPC message round-trips through a frame, and every malformed frame (truncated, unknown
 * id, unknown enum code, oversized length or count, trailing bytes, bad UTF-8) is refused with
 * the one error, {@link MalformedFrameException}, naming the message and the field.
 */
class RpcMessagesTest {
  /** Encodes a frame, checks its length prefix, and decodes its body. */
  private static RpcMessage roundTrip(RpcMessage message) {
    ByteBuf frame = RpcChannels.toFrame(ByteBufAllocator.DEFAULT, message);
    try {
      int length = frame.readInt();
      assertEquals(frame.readableBytes(), length, "length prefix counts type byte + payload");
      return RpcMessages.decode(frame);
    } finally {
      frame.release();
    }
  }

  private static MalformedFrameException refused(byte[] body) {
    return assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(Unpooled.wrappedBuffer(body)));
  }

  private static void assertMentions(MalformedFrameException e, String... parts) {
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), "'" + part + "' in: " + e.getMessage());
    }
  }

  @Test
  void everyMessageRoundTrips() {
    TaskDescription reduce = RpcExamples.REDUCE_TASK;
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
    TaskOutcome fetchFailed = RpcExamples.FETCH_FAILED;
    assertEquals(fetchFailed,
        ((RpcMessage.TaskStatus) roundTrip(new RpcMessage.TaskStatus(fetchFailed))).outcome());
    assertEquals(new RpcMessage.Shutdown("bye"), roundTrip(new RpcMessage.Shutdown("bye")));
    assertEquals(new RpcMessage.UpdateTokens(new byte[] {'H', 'D', 'T', 'S', 0, 0, 0}),
        roundTrip(new RpcMessage.UpdateTokens(new byte[] {'H', 'D', 'T', 'S', 0, 0, 0})));
  }

  @Test
  void updateTokensCarriesHadoopTokenStorageWhole() throws Exception {
    org.apache.hadoop.security.Credentials credentials =
        new org.apache.hadoop.security.Credentials();
    credentials.addToken(new org.apache.hadoop.io.Text("nn:8020"),
        new org.apache.hadoop.security.token.Token<>(new byte[] {1, 2}, new byte[] {3},
            new org.apache.hadoop.io.Text("HDFS_DELEGATION_TOKEN"),
            new org.apache.hadoop.io.Text("nn:8020")));
    org.apache.hadoop.io.DataOutputBuffer out = new org.apache.hadoop.io.DataOutputBuffer();
    credentials.writeTokenStorageToStream(out);
    byte[] storage = java.util.Arrays.copyOf(out.getData(), out.getLength());

    byte[] back = ((RpcMessage.UpdateTokens) roundTrip(new RpcMessage.UpdateTokens(storage)))
        .credentials();

    org.apache.hadoop.security.Credentials read = new org.apache.hadoop.security.Credentials();
    read.readTokenStorageStream(new java.io.DataInputStream(
        new java.io.ByteArrayInputStream(back)));
    assertEquals(List.copyOf(credentials.getAllTokens()), List.copyOf(read.getAllTokens()));
  }

  @Test
  void theOtherShapesOfTasksAndOutcomesRoundTrip() {
    TaskDescription map = new TaskDescription(1L << 33, TaskDescription.Kind.MAP, 0, 5, 0,
        "a.Mapper", new byte[0], List.of(), List.of(), 3,
        dev.tide.driver.job.JobPlan.Partitioning.hash(), "", null, new byte[0]);
    TaskDescription back = ((RpcMessage.LaunchTask) roundTrip(new RpcMessage.LaunchTask(map)))
        .task();
    assertEquals(map.describe(), back.describe());
    assertEquals(null, back.dataset());
    assertEquals(map.taskId(), back.taskId());
    TaskDescription uncached = new TaskDescription(2, TaskDescription.Kind.MAP, 0, 1, 1, "m",
        new byte[] {3}, List.of("h"), List.of(), 1,
        dev.tide.driver.job.JobPlan.Partitioning.hash(), "",
        new TaskDescription.DatasetBlock("d", "p", false), new byte[0]);
    assertEquals(uncached.dataset(), ((RpcMessage.LaunchTask) roundTrip(
        new RpcMessage.LaunchTask(uncached))).task().dataset());
    for (TaskOutcome outcome : List.of(TaskOutcome.succeeded(3, Map.of("a", 1L, "b", -1L)),
        TaskOutcome.failed(4, "boom \u00e9\u4e2d"), new TaskOutcome(5,
            TaskOutcome.State.FETCH_FAILED, "", "h", 1, true, 2, List.of(), Map.of(), "service"))) {
      assertEquals(outcome,
          ((RpcMessage.TaskStatus) roundTrip(new RpcMessage.TaskStatus(outcome))).outcome());
    }
  }

  @Test
  void enumsTravelAsTheirExplicitCodes() {
    assertEquals(List.of(0, 1), Arrays.stream(TaskDescription.Kind.values())
        .map(TaskDescription.Kind::wire).toList());
    assertEquals(List.of(0, 1, 2), Arrays.stream(TaskOutcome.State.values())
        .map(TaskOutcome.State::wire).toList());
  }

  @Test
  void aHeartbeatRoundTripsWithItsRunningTasksAndItsBytesAreAsDocumented() {
    RpcMessage.Heartbeat beat = new RpcMessage.Heartbeat("12", List.of(7L, 1L << 40));
    assertEquals(beat, roundTrip(beat));
    assertEquals(new RpcMessage.Heartbeat("3", List.of()),
        roundTrip(new RpcMessage.Heartbeat("3", List.of())));
    ByteBuf frame = RpcChannels.toFrame(ByteBufAllocator.DEFAULT, beat);
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
    MalformedFrameException tooMany = assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(lying));
    assertTrue(tooMany.getMessage().contains("list count 1000000"), tooMany.getMessage());
    assertMentions(tooMany, "HEARTBEAT (70) runningTaskIds");
  }

  @Test
  void malformedFramesAreRefusedWithAReasonAndNoHugeAllocation() {
    MalformedFrameException unknown = refused(new byte[] {120});
    assertTrue(unknown.getMessage().contains("unknown RPC message type 120"));
    // REGISTER_EXECUTOR whose first string claims 2 GB.
    ByteBuf huge = Unpooled.buffer().writeByte(64).writeInt(Integer.MAX_VALUE);
    MalformedFrameException tooLong = assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(huge));
    assertTrue(tooLong.getMessage().contains("field length"), tooLong.getMessage());
    assertMentions(tooLong, "REGISTER_EXECUTOR (64) executorId");
    ByteBuf truncated = Unpooled.buffer().writeByte(69).writeShort(1);
    assertMentions(assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(truncated)), "SHUTDOWN (69) reason", "truncated");
    ByteBuf trailing = RpcChannels.toFrame(ByteBufAllocator.DEFAULT,
        new RpcMessage.Shutdown("x"));
    trailing.readInt();
    trailing.writeByte(0);
    MalformedFrameException extra = assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(trailing));
    assertTrue(extra.getMessage().contains("trailing"));
    assertMentions(extra, "SHUTDOWN (69)", "1 trailing bytes");
    trailing.release();
  }

  @Test
  void everyTruncationOfEveryMessageIsRefusedNamingTheMessage() {
    RpcExamples.all().forEach((name, message) -> {
      byte[] body = RpcExamples.body(message);
      for (int len = 1; len < body.length; len++) {
        MalformedFrameException e = refused(Arrays.copyOf(body, len));
        assertMentions(e, name + " (" + (body[0] & 0xFF) + ")");
      }
    });
    assertMentions(refused(new byte[0]), "empty RPC frame");
  }

  @Test
  void idsOutsideTheNineMessagesAreRefused() {
    for (int id : new int[] {0, 1, 16, 63, 73, 127, 128, 255}) {
      assertMentions(refused(new byte[] {(byte) id, 0, 0, 0, 0}),
          "unknown RPC message type " + id);
    }
  }

  @Test
  void unknownEnumCodesAndFlagsAreRefusedNamingTheField() {
    byte[] launch = RpcExamples.body(RpcExamples.all().get("LAUNCH_TASK"));
    byte[] badKind = launch.clone();
    badKind[1 + 8] = 2; // after the id and taskId
    assertMentions(refused(badKind), "LAUNCH_TASK (67) kind: unknown code 2");
    byte[] status = RpcExamples.body(RpcExamples.all().get("TASK_STATUS"));
    byte[] badState = status.clone();
    badState[1 + 8] = 3;
    assertMentions(refused(badState), "TASK_STATUS (68) state: unknown code 3");
    // wholeServiceLost: after id, taskId, state, message "gone", fetchHost "h2", fetchPort.
    byte[] badBool = status.clone();
    badBool[1 + 8 + 1 + (4 + 4) + (4 + 2) + 4] = 7;
    assertMentions(refused(badBool), "TASK_STATUS (68) wholeServiceLost: boolean byte 7");
    // The dataset flag sits before the dataset's two strings and the spec.
    byte[] badDataset = launch.clone();
    int flagAt = launch.length - (4 + 2) - (4 + "a.Parse".length()) - (4 + "points".length()) - 1;
    assertEquals(2, badDataset[flagAt], "the cached dataset's flag");
    badDataset[flagAt] = 3;
    assertMentions(refused(badDataset), "LAUNCH_TASK (67) dataset: unknown code 3");
  }

  @Test
  void oversizedLengthsAndCountsAreRefusedBeforeAllocating() {
    ByteBuf registered = Unpooled.buffer().writeByte(65).writeInt(RpcReader.MAX_FIELD_BYTES + 1);
    assertMentions(assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(registered)), "REGISTERED (65) jobConf: field length");
    ByteBuf negative = Unpooled.buffer().writeByte(66).writeInt(-1);
    assertMentions(assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(negative)), "REGISTER_REJECTED (66) reason: field length -1");
    ByteBuf hosts = Unpooled.buffer().writeByte(67).writeLong(1).writeByte(0).writeInt(0)
        .writeInt(0).writeInt(0).writeInt(0).writeInt(0).writeInt(Integer.MAX_VALUE);
    assertMentions(assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(hosts)), "LAUNCH_TASK (67) preferredHosts: list count");
  }

  @Test
  void badUtf8AndUnorderedMetricsAreRefused() {
    ByteBuf badUtf8 = Unpooled.buffer().writeByte(69).writeInt(2).writeByte(0xC3).writeByte(0x28);
    assertMentions(assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(badUtf8)), "SHUTDOWN (69) reason: not valid UTF-8");
    // Two metrics, "b" before "a".
    ByteBuf unordered = Unpooled.buffer().writeByte(68).writeLong(1).writeByte(0)
        .writeInt(0).writeInt(0).writeInt(0).writeByte(0).writeInt(0).writeInt(0)
        .writeInt(2).writeInt(1).writeByte('b').writeLong(1).writeInt(1).writeByte('a')
        .writeLong(2).writeInt(0);
    assertMentions(assertThrows(MalformedFrameException.class,
        () -> RpcMessages.decode(unordered)), "TASK_STATUS (68) metrics[1].key");
  }
}
