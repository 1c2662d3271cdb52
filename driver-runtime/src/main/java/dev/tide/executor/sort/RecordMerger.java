package dev.tide.executor.sort;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A k-way merge of sorted record streams into one sorted stream: equal keys come out adjacent,
 * in the order of the inputs that hold them. Holds one record per input. Closing it closes every
 * input (failures collected). Not thread-safe.
 */
public final class RecordMerger implements SortedRecords {
  private final List<SortedRecords> inputs;
  private final PriorityQueue<Integer> heads;
  private int current = -1;
  private boolean started;

  public RecordMerger(List<? extends SortedRecords> inputs) {
    this.inputs = new ArrayList<>(inputs);
    this.heads = new PriorityQueue<>(Math.max(1, inputs.size()), (a, b) -> {
      int c = KeyOrder.compare(this.inputs.get(a).key(), this.inputs.get(b).key());
      return c != 0 ? c : Integer.compare(a, b);
    });
  }

  @Override
  public boolean advance() throws IOException {
    if (!started) {
      started = true;
      for (int i = 0; i < inputs.size(); i++) {
        if (inputs.get(i).advance()) {
          heads.add(i);
        }
      }
    } else if (current >= 0 && inputs.get(current).advance()) {
      heads.add(current);
    }
    Integer next = heads.poll();
    current = next == null ? -1 : next;
    return current >= 0;
  }

  @Override
  public byte[] key() {
    return inputs.get(current).key();
  }

  /** Which input the current record came from (its position in the list given). */
  public int input() {
    return current;
  }

  @Override
  public byte[] value() {
    return inputs.get(current).value();
  }

  @Override
  public void close() throws IOException {
    CloseAll.of(inputs);
  }
}
