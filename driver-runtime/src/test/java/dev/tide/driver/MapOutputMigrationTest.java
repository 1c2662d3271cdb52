package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventLog;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.scheduler.JobScheduler;
import dev.tide.driver.scheduler.JobScheduler.ServedOutput;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.RpcMessage;
import dev.tide.rpc.RpcMessages;
import dev.tide.rpc.TaskOutcome;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The driver's map-output table for migration: a real scheduler's map outputs, and each move it
 * makes sent to every executor (Netty's {@link EmbeddedChannel} stands for their connections).
 */
class MapOutputMigrationTest {
  @Test
  void aMoveTheSchedulerMakesIsSentToEveryExecutorAndOneItRefusesIsNot() {
    List<InputSplit> splits = List.of(new InputSplit(new byte[] {0}, List.of()),
        new InputSplit(new byte[] {1}, List.of()));
    JobPlan plan = JobPlan.mapReduce("t", splits, PlanRunnerTest.M.class, PlanRunnerTest.R.class,
        1, "");
    JobScheduler scheduler = new JobScheduler(plan, 1, 2, () -> 0L, EventLog.disabled());
    scheduler.executorAdded("1", "hostA", 7001);
    for (int map = 0; map < 2; map++) {
      scheduler.taskEnded(TaskOutcome.succeeded(
          scheduler.assignTasks().get(0).task().taskId(), Map.of()));
    }
    scheduler.executorAdded("2", "hostB", 7002);
    EmbeddedChannel one = new EmbeddedChannel();
    EmbeddedChannel two = new EmbeddedChannel();
    ShuffleMigrator.MapOutputTable table =
        MapOutputMigration.table(scheduler, () -> List.of(one, two));
    assertEquals(List.of(new ServedOutput(0, 0, 7001), new ServedOutput(0, 1, 7001)),
        table.mapOutputsOn("hostA"));
    assertEquals(Map.of("hostA", 7001, "hostB", 7002), table.liveShuffleServices());

    assertTrue(table.moveMapOutput(0, 0, "hostA", 7001, "hostB", 7002));
    RpcMessage moved = new RpcMessage.MapOutputsMoved(0, List.of(new MapLocation(0, "hostB",
        7002)));
    assertEquals(moved, sent(one));
    assertEquals(moved, sent(two));
    assertEquals(List.of(new ServedOutput(0, 1, 7001)), table.mapOutputsOn("hostA"));

    assertFalse(table.moveMapOutput(0, 0, "hostA", 7001, "hostB", 7002), "already moved");
    assertNull(one.readOutbound(), "a move the scheduler refused is not sent");
    assertNull(two.readOutbound());
  }

  /** The next message {@code channel} sent, decoded from its frame. */
  private static RpcMessage sent(EmbeddedChannel channel) {
    ByteBuf frame = channel.readOutbound();
    try {
      assertEquals(frame.readableBytes() - 4, frame.readInt(), "the length prefix");
      return RpcMessages.decode(frame);
    } finally {
      frame.release();
    }
  }
}
