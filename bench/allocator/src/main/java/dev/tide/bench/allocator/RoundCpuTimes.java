package dev.tide.bench.allocator;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The rounds of {@link AllocationRoundBench}, timed by the CPU time of the thread that runs
 * them as well as by wall time: on a machine shared with other work (more runnable threads
 * than cores), JMH's wall-clock average measures the share of a core the round got more than
 * the round; its thread's CPU time is close to what it costs on an idle core. Each round gets a
 * fresh table, set up untimed; {@code warmUp} rounds are run first, then {@code rounds} are
 * timed; prints median, 90th percentile and max per shape and table.
 *
 * <p>{@code java -cp ... dev.tide.bench.allocator.RoundCpuTimes [warmUp] [rounds]}
 */
public final class RoundCpuTimes {
  private RoundCpuTimes() {}

  /** One round shape: how the table is set up before it, and the round. */
  private record Shape(String name, boolean populated, Consumer<AllocationRoundBench.Table> round) {}

  public static void main(String[] args) {
    int warmUp = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    AllocationRoundBench b = new AllocationRoundBench();
    b.hosts = 5000;
    b.tasks = 10000;
    b.names = "resolvable";
    b.workload();
    List<Shape> shapes = List.of(
        new Shape("coldRound", false, t -> t.round(b, b.hints)),
        new Shape("changedHintsRound", true, t -> t.round(b, b.changedHints)),
        new Shape("hostsDroppedRound", true, t -> t.round(b, b.droppedHints, b.droppedTasks)),
        new Shape("rackDroppedRound", true,
            t -> t.round(b, b.rackDroppedHints, b.rackDroppedTasks)),
        new Shape("unchangedHintsRound", true, t -> t.round(b, b.hints)));
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    System.out.println("| round | table | CPU median | CPU p90 | CPU max | wall median | wall max |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (Shape shape : shapes) {
      for (String table : new String[] {"yarn", "none"}) {
        AllocationRoundBench.Table t = new AllocationRoundBench.Table();
        t.table = table;
        long[] cpu = new long[rounds];
        long[] wall = new long[rounds];
        for (int i = -warmUp; i < rounds; i++) {
          t.fresh(b);
          if (shape.populated()) {
            t.round(b, b.hints);
          }
          long cpu0 = threads.getCurrentThreadCpuTime();
          long wall0 = System.nanoTime();
          shape.round().accept(t);
          long wallNanos = System.nanoTime() - wall0;
          long cpuNanos = threads.getCurrentThreadCpuTime() - cpu0;
          if (i >= 0) {
            cpu[i] = cpuNanos;
            wall[i] = wallNanos;
          }
        }
        Arrays.sort(cpu);
        Arrays.sort(wall);
        System.out.printf("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |%n", shape.name(), table,
            ms(cpu[rounds / 2]), ms(cpu[rounds * 9 / 10]), ms(cpu[rounds - 1]),
            ms(wall[rounds / 2]), ms(wall[rounds - 1]));
      }
    }
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }
}
