package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.time.ManualClock;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The driver's registry of executors, without a network: Netty's {@link EmbeddedChannel} stands
 * for an executor's connection, a manual clock for the driver's. An executor gets tasks once it
 * is both launched and registered, in either order; one that goes is forgotten once, its
 * connection closed; a silent one is found by its heartbeat timeout.
 */
class ExecutorRegistryTest {
  private final ManualClock clock = new ManualClock(10_000);
  private final ExecutorRegistry registry =
      new ExecutorRegistry(new ExecutorHeartbeats(Duration.ofSeconds(5)));

  @Test
  void anExecutorIsReadyOnceLaunchedAndRegisteredInEitherOrder() {
    EmbeddedChannel one = new EmbeddedChannel();
    registry.launched("1", "node1", 7337, clock.millis());
    assertNull(registry.readyShuffleAddress("1"), "launched, not yet registered");
    registry.registered("1", one, "node1", clock.millis());
    assertEquals(InetSocketAddress.createUnresolved("node1", 7337),
        registry.readyShuffleAddress("1"));

    EmbeddedChannel two = new EmbeddedChannel();
    registry.registered("2", two, "node2", clock.millis());
    assertNull(registry.readyShuffleAddress("2"), "registered, its launch not yet reported");
    registry.launched("2", "node2", 7447, clock.millis());
    assertEquals(7447, registry.readyShuffleAddress("2").getPort());
    assertEquals(Set.of("1", "2"), Set.copyOf(registry.registeredIds()));
    assertEquals(Set.of(one, two), Set.copyOf(registry.channels()));
    assertTrue(registry.isRegistered("1"));
    assertFalse(registry.isRegistered("3"));
  }

  @Test
  void theStartLatencyIsMeasuredFromTheContainersAllocationOnce() {
    registry.launched("1", "node1", 7337, 4_000);
    assertEquals(1, registry.starting(), "allocated, not yet added");
    registry.registered("1", new EmbeddedChannel(), "node1", clock.millis());

    assertEquals(4_000L, registry.added("1"));
    assertEquals(0, registry.starting());
    assertNull(registry.added("1"), "a second add has no allocation time");
  }

  @Test
  void aRegistrationIsRefusedTwiceAfterRemovalAndOnceTheJobIsOver() {
    EmbeddedChannel channel = new EmbeddedChannel();
    assertNull(registry.refusal("1", false));
    assertEquals("executor 1: the job is over", registry.refusal("1", true));
    registry.registered("1", channel, "node1", clock.millis());
    assertEquals("executor 1 is already registered or was removed",
        registry.refusal("1", false));

    registry.remove("1");

    assertEquals("executor 1 is already registered or was removed",
        registry.refusal("1", false), "an id that has gone never comes back");
  }

  @Test
  void removingAnExecutorClosesItsConnectionAndCountsOnce() {
    EmbeddedChannel channel = new EmbeddedChannel();
    registry.launched("1", "node1", 7337, clock.millis());
    registry.registered("1", channel, "node1", clock.millis());
    registry.added("1");
    assertEquals(1, registry.changes());

    assertTrue(registry.remove("1"), "the first removal is news");
    assertFalse(channel.isOpen(), "what it sends later is never read");
    assertTrue(registry.isGone("1"));
    assertTrue(registry.isRegistered("1"), "it did register once");
    assertNull(registry.channel("1"));
    assertNull(registry.readyShuffleAddress("1"));
    assertEquals(2, registry.changes());

    assertFalse(registry.remove("1"), "removed twice (exit after close) is one change");
    assertEquals(2, registry.changes());
  }

  @Test
  void removingAnExecutorNeverLaunchedNorRegisteredIsNoNews() {
    assertFalse(registry.remove("7"));
    assertFalse(registry.isGone("7"));
    assertEquals(0, registry.changes());
  }

  @Test
  void anExecutorLaunchedButNeverRegisteredCanGo() {
    registry.launched("1", "node1", 7337, clock.millis());

    assertTrue(registry.remove("1"));

    assertTrue(registry.isGone("1"));
    assertFalse(registry.isRegistered("1"));
    assertEquals(0, registry.starting(), "it no longer counts as starting");
  }

  @Test
  void aClosedConnectionNamesItsExecutorOnce() {
    EmbeddedChannel channel = new EmbeddedChannel();
    registry.registered("1", channel, "node1", clock.millis());

    assertEquals("1", registry.channelClosed(channel));
    assertNull(registry.channelClosed(channel));
    assertNull(registry.channelClosed(new EmbeddedChannel()), "an unknown connection");
  }

  @Test
  void messagesOnARegisteredChannelKeepItsExecutorAlive() {
    EmbeddedChannel talking = new EmbeddedChannel();
    EmbeddedChannel silent = new EmbeddedChannel();
    registry.registered("talking", talking, "node1", clock.millis());
    registry.registered("silent", silent, "node2", clock.millis());

    for (int i = 0; i < 6; i++) {
      clock.advanceMillis(1_000);
      assertEquals("talking", registry.heardFrom(talking, clock.millis()));
    }
    List<ExecutorHeartbeats.Silent> lost = registry.expire(clock.millis());

    assertEquals(1, lost.size());
    assertEquals("silent", lost.get(0).executorId());
    assertEquals("node2", lost.get(0).host());
    assertEquals("lost: no heartbeat for 6 s (tide.executor.heartbeatTimeout = 5s)",
        registry.reason(lost.get(0)));
    assertEquals(List.of(), registry.expire(clock.millis()), "reported once");
  }

  @Test
  void aMessageOnAnUnknownChannelNamesNoExecutor() {
    assertNull(registry.heardFrom(new EmbeddedChannel(), clock.millis()));
  }

  @Test
  void aRemovedExecutorIsNoLongerWatchedForSilence() {
    registry.registered("1", new EmbeddedChannel(), "node1", clock.millis());
    registry.remove("1");
    clock.advanceMillis(60_000);

    assertEquals(List.of(), registry.expire(clock.millis()));
  }
}
