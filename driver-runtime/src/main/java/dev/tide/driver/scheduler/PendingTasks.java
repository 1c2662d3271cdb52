package dev.tide.driver.scheduler;

import java.util.AbstractCollection;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Collections;
import java.util.Iterator;

/**
 * The tasks of one stage that wait to run, by index, in queue order, each at most once. Whether
 * a task waits is answered in constant time (a stage of 60,000 tasks is queued, and its lost
 * outputs requeued, in linear time, where a scan of the queue per task made that quadratic).
 * Iteration is read-only: {@link #remove(Object)} takes a task out.
 */
final class PendingTasks extends AbstractCollection<Integer> {
  private final ArrayDeque<Integer> queue = new ArrayDeque<>();
  private final BitSet queued = new BitSet();

  /** Queues {@code index} at the back; false (and no change) if it already waits. */
  @Override
  public boolean add(Integer index) {
    if (queued.get(index)) {
      return false;
    }
    queued.set(index);
    queue.addLast(index);
    return true;
  }

  /** Queues {@code index} at the front; false (and no change) if it already waits. */
  boolean addFirst(int index) {
    if (queued.get(index)) {
      return false;
    }
    queued.set(index);
    queue.addFirst(index);
    return true;
  }

  @Override
  public boolean contains(Object index) {
    return index instanceof Integer i && i >= 0 && queued.get(i);
  }

  @Override
  public boolean remove(Object index) {
    if (!contains(index)) {
      return false;
    }
    queued.clear((Integer) index);
    queue.removeFirstOccurrence(index);
    return true;
  }

  /** The task at the front of the queue, or null when none waits. */
  Integer peekFirst() {
    return queue.peekFirst();
  }

  @Override
  public Iterator<Integer> iterator() {
    return Collections.unmodifiableCollection(queue).iterator();
  }

  @Override
  public int size() {
    return queue.size();
  }

  @Override
  public boolean isEmpty() {
    return queue.isEmpty();
  }
}
