package dev.tide.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.events.EventName;
import dev.tide.driver.scheduler.JobScheduler.ServedOutput;
import dev.tide.shuffle.protocol.MapOutputId;
import dev.tide.shuffle.protocol.MigrateReply;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The driver's migrator with a small table, a scripted transport, a manual clock, and owner and
 * worker that run work at once (so each test reads as one sequence).
 */
class ShuffleMigratorTest {
  static final int PORT = 7447;

  /** host:port per "shuffle/map", as the scheduler's map-output table holds them. */
  static final class FakeTable implements ShuffleMigrator.MapOutputTable {
    final Map<String, String> locations = new TreeMap<>();
    final Map<String, Integer> services = new LinkedHashMap<>();

    void put(int shuffle, int map, String host) {
      locations.put(shuffle + "/" + map, host + ":" + PORT);
    }

    String where(int shuffle, int map) {
      return locations.get(shuffle + "/" + map);
    }

    @Override
    public List<ServedOutput> mapOutputsOn(String host) {
      List<ServedOutput> on = new ArrayList<>();
      locations.forEach((k, v) -> {
        if (v.equals(host + ":" + PORT)) {
          String[] ids = k.split("/");
          on.add(new ServedOutput(Integer.parseInt(ids[0]), Integer.parseInt(ids[1]), PORT));
        }
      });
      return on;
    }

    @Override
    public Map<String, Integer> liveShuffleServices() {
      return services;
    }

    @Override
    public boolean moveMapOutput(int shuffleId, int mapId, String fromHost, int fromPort,
        String toHost, int toPort) {
      String key = shuffleId + "/" + mapId;
      if (!(fromHost + ":" + fromPort).equals(locations.get(key))) {
        return false;
      }
      locations.put(key, toHost + ":" + toPort);
      return true;
    }
  }

  /** A MIGRATE_REQUEST as the fake transport saw it. */
  record Call(String host, String target, long timeoutMillis, List<MapOutputId> maps) {}

  record Event(EventName name, Map<String, Object> fields) {}

  final FakeTable table = new FakeTable();
  final AtomicLong clock = new AtomicLong(1_000_000);
  final List<Call> calls = new ArrayList<>();
  final List<Event> events = new ArrayList<>();
  /** What the scripted transport answers: by default every map copied, 100 bytes each. */
  ShuffleMigrator.Transport service = (host, port, target, targetPort, timeout, maps) ->
      new MigrateReply(1, 100L * maps.size(), maps, "");

  ShuffleMigrator migrator(int batch) {
    ShuffleMigrator.Transport recording = (host, port, target, targetPort, timeout, maps) -> {
      calls.add(new Call(host, target, timeout, maps));
      return service.migrate(host, port, target, targetPort, timeout, maps);
    };
    return new ShuffleMigrator(Runnable::run, () -> table, recording, Runnable::run, clock::get,
        (name, kv) -> {
          Map<String, Object> fields = new LinkedHashMap<>();
          for (int i = 0; i < kv.length; i += 2) {
            fields.put((String) kv[i], kv[i + 1]);
          }
          events.add(new Event(name, fields));
        }, batch);
  }

  void nodesWithExecutors(String... hosts) {
    for (String h : hosts) {
      table.services.put(h, PORT);
    }
  }

  @Test
  void outputsAreSpreadOverTheOtherNodesAndMoveWhenConfirmed() {
    nodesWithExecutors("leaving", "b", "c");
    for (int m = 0; m < 4; m++) {
      table.put(2, m, "leaving");
    }
    table.put(2, 9, "b");

    migrator(16).decommissioning("leaving", clock.get() + 60_000);

    assertEquals(2, calls.size());
    assertEquals(new Call("leaving", "b", 60_000, List.of(new MapOutputId(2, 0),
        new MapOutputId(2, 2))), calls.get(0));
    assertEquals(new Call("leaving", "c", 60_000, List.of(new MapOutputId(2, 1),
        new MapOutputId(2, 3))), calls.get(1));
    assertEquals("b:7447", table.where(2, 0));
    assertEquals("c:7447", table.where(2, 1));
    assertEquals("b:7447", table.where(2, 2));
    assertEquals("c:7447", table.where(2, 3));
    assertEquals(List.of(EventName.MIGRATION_STARTED, EventName.MIGRATION_FINISHED),
        events.stream().map(Event::name).toList());
    assertEquals(4, events.get(1).fields().get("moved"));
    assertEquals(400L, events.get(1).fields().get("bytes"));
  }

  @Test
  void onlyConfirmedCopiesMoveTheOthersStayForReruns() {
    nodesWithExecutors("leaving", "b");
    for (int m = 0; m < 3; m++) {
      table.put(0, m, "leaving");
    }
    service = (host, port, target, targetPort, timeout, maps) -> new MigrateReply(1, 10,
        List.of(new MapOutputId(0, 1)), "0/0: the target refused or failed: CORRUPT; 0/2: no"
        + " committed map output on this node");

    migrator(16).decommissioning("leaving", clock.get() + 60_000);

    assertEquals("leaving:7447", table.where(0, 0));
    assertEquals("b:7447", table.where(0, 1));
    assertEquals("leaving:7447", table.where(0, 2));
    Event last = events.get(events.size() - 1);
    assertEquals(EventName.MIGRATION_FAILED, last.name());
    assertEquals(1, last.fields().get("moved"));
    assertTrue(((String) last.fields().get("reason")).contains("CORRUPT"), last.toString());
  }

  @Test
  void anOutputRerunElsewhereMeanwhileIsNotMoved() {
    nodesWithExecutors("leaving", "b");
    table.put(0, 0, "leaving");
    service = (host, port, target, targetPort, timeout, maps) -> {
      table.put(0, 0, "rerun-here"); // lost and recomputed while the copy ran
      return new MigrateReply(1, 10, maps, "");
    };

    migrator(16).decommissioning("leaving", clock.get() + 60_000);

    assertEquals("rerun-here:7447", table.where(0, 0));
    assertEquals(EventName.MIGRATION_FAILED, events.get(events.size() - 1).name());
  }

  @Test
  void aNodeWithoutTimeLeftFallsBackToReruns() {
    nodesWithExecutors("leaving", "b");
    table.put(0, 0, "leaving");

    migrator(16).decommissioning("leaving", clock.get());

    assertEquals(List.of(), calls);
    assertEquals("leaving:7447", table.where(0, 0));
    assertEquals(List.of(EventName.MIGRATION_FAILED), events.stream().map(Event::name).toList());
  }

  @Test
  void copiesThatWouldStartAfterTheDeadlineAreNotSent() {
    nodesWithExecutors("leaving", "b");
    for (int m = 0; m < 3; m++) {
      table.put(0, m, "leaving");
    }
    long leavesAt = clock.get() + 5_000;
    service = (host, port, target, targetPort, timeout, maps) -> {
      clock.addAndGet(6_000); // the first copy took longer than the node had
      return new MigrateReply(1, 10, maps, "");
    };

    migrator(1).decommissioning("leaving", leavesAt);

    assertEquals(1, calls.size());
    assertEquals(5_000, calls.get(0).timeoutMillis());
    assertEquals("b:7447", table.where(0, 0));
    assertEquals("leaving:7447", table.where(0, 1));
    assertEquals("leaving:7447", table.where(0, 2));
    Event last = events.get(events.size() - 1);
    assertEquals(EventName.MIGRATION_FAILED, last.name());
    assertTrue(((String) last.fields().get("reason")).contains("time was up"), last.toString());
  }

  @Test
  void aNodeReportedAgainIsMigratedOnce() {
    nodesWithExecutors("leaving", "b");
    table.put(0, 0, "leaving");
    table.put(0, 1, "leaving");
    service = (host, port, target, targetPort, timeout, maps) -> new MigrateReply(1, 10,
        List.of(maps.get(0)), "0/1: the target refused or failed: BUSY");
    ShuffleMigrator m = migrator(16);

    m.decommissioning("leaving", clock.get() + 60_000);
    m.decommissioning("leaving", clock.get() + 50_000);

    assertEquals(1, calls.size());
    assertEquals(2, events.size());
  }

  @Test
  void aFailedRequestMovesNothing() {
    nodesWithExecutors("leaving", "b");
    table.put(0, 0, "leaving");
    service = (host, port, target, targetPort, timeout, maps) -> {
      throw new java.io.IOException("connection refused");
    };

    migrator(16).decommissioning("leaving", clock.get() + 60_000);

    assertEquals("leaving:7447", table.where(0, 0));
    assertEquals(EventName.MIGRATION_FAILED, events.get(events.size() - 1).name());
  }

  @Test
  void withNoOtherNodeNothingIsAskedAndTheMapsRerun() {
    nodesWithExecutors("leaving");
    table.put(0, 0, "leaving");

    migrator(16).decommissioning("leaving", clock.get() + 60_000);

    assertEquals(List.of(), calls);
    assertEquals(List.of(EventName.MIGRATION_FAILED), events.stream().map(Event::name).toList());
    assertTrue(((String) events.get(0).fields().get("reason")).contains("no other node"));
  }

  @Test
  void leavingAndLostNodesAreNoTargetsAndALostNodeStopsItsMigration() {
    nodesWithExecutors("a", "b", "c");
    table.put(0, 0, "a");
    table.put(0, 1, "a");
    table.put(0, 2, "b");
    List<Runnable> later = new ArrayList<>();
    ShuffleMigrator.Transport recording = (host, port, target, targetPort, timeout, maps) -> {
      calls.add(new Call(host, target, timeout, maps));
      return new MigrateReply(1, 0, maps, "");
    };
    // The worker holds its work until the test lets it run.
    ShuffleMigrator m = new ShuffleMigrator(Runnable::run, () -> table, recording, later::add,
        clock::get, (name, kv) -> events.add(new Event(name, Map.of())), 1);

    m.decommissioning("a", clock.get() + 60_000);
    m.lost("c");
    m.decommissioning("b", clock.get() + 60_000);
    m.lost("a");
    later.forEach(Runnable::run);

    // a's outputs could only go to b and c; c was lost and b leaves, but a's plan was made
    // before: it was lost before any copy was sent, so none was.
    assertEquals(List.of(), calls.stream().filter(c -> c.host().equals("a")).toList());
    assertEquals("a:7447", table.where(0, 0));
    // b's output had no target left (a and c are gone or leaving).
    assertEquals("b:7447", table.where(0, 2));
  }
}
