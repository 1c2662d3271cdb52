package dev.tide.driver.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PendingTasksTest {
  @Test
  void keepsQueueOrderWithEachTaskOnceAndRequeuesAtTheFront() {
    PendingTasks pending = new PendingTasks();
    assertTrue(pending.isEmpty());
    assertNull(pending.peekFirst());
    assertTrue(pending.add(2));
    assertTrue(pending.add(0));
    assertTrue(pending.add(5));
    assertFalse(pending.add(0), "a waiting task is not queued twice");
    assertFalse(pending.addFirst(5), "nor put in front while it waits");
    assertTrue(pending.addFirst(7));
    assertEquals(List.of(7, 2, 0, 5), List.copyOf(pending));
    assertEquals(7, pending.peekFirst());
    assertEquals(4, pending.size());
  }

  @Test
  void removeTakesATaskOutWhereverItWaitsAndItMayBeQueuedAgain() {
    PendingTasks pending = new PendingTasks();
    for (int i = 0; i < 5; i++) {
      pending.add(i);
    }
    assertTrue(pending.remove(Integer.valueOf(3)));
    assertFalse(pending.remove(Integer.valueOf(3)));
    assertFalse(pending.contains(3));
    assertFalse(pending.remove("3"), "not a task index");
    assertFalse(pending.contains(-1));
    assertEquals(List.of(0, 1, 2, 4), List.copyOf(pending));
    assertTrue(pending.add(3));
    assertEquals(List.of(0, 1, 2, 4, 3), List.copyOf(pending));
    assertTrue(pending.contains(3));
  }

  @Test
  void iterationCannotChangeTheQueue() {
    PendingTasks pending = new PendingTasks();
    pending.add(1);
    var it = pending.iterator();
    it.next();
    assertThrows(UnsupportedOperationException.class, it::remove);
    assertEquals(List.of(1), List.copyOf(pending));
  }

  @Test
  void aWideStageIsQueuedWholeAndEachLostOutputRequeuedOnce() {
    PendingTasks pending = new PendingTasks();
    int tasks = 60_000;
    for (int round = 0; round < 2; round++) { // a stage submitted again queues nothing twice
      for (int i = 0; i < tasks; i++) {
        pending.add(i);
      }
    }
    assertEquals(tasks, pending.size());
    for (int i = 0; i < tasks / 2; i++) { // the first half started (taken from the front)
      assertTrue(pending.remove(Integer.valueOf(i)));
    }
    for (int i = 0; i < tasks; i += 1000) { // every 1000th output lost, some reported twice
      pending.addFirst(i);
      pending.addFirst(i);
    }
    assertEquals(tasks / 2 + 30, pending.size(), "the 30 lost outputs of started tasks");
    assertEquals(29_000, pending.peekFirst());
  }
}
