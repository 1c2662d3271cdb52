package dev.tide.bench.elasticity;

import dev.tide.driver.alloc.BatchAllocationPolicy;
import dev.tide.driver.alloc.BatchAllocationPolicy.Decision;
import dev.tide.driver.alloc.IdleExecutor;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference for executor-seconds: an allocation that knows the future. On every tick it asks
 * for the most executors the tasks will occupy within one container start (heartbeat + start
 * latency + its jitter + one tick) from now, so a stage's executors are registered when its
 * tasks arrive; it needs no backlog timeout. An idle executor is released at once when the
 * containers held exceed that count (its tasks drained and nothing foreseen will use it).
 *
 * <p>Not a policy Tide could run (it reads task durations and future stage releases from the
 * trace through {@link Simulation.Environment}); it bounds what any policy can save on the same
 * simulated cluster. Single-threaded.
 */
final class OracleAllocation implements Simulation.Allocation {
  private final Simulation.Environment environment;
  private final int maxExecutors;
  private final long horizonMillis;

  /** @param horizonMillis how far ahead a container request must be made to be ready in time */
  OracleAllocation(Simulation.Environment environment, int maxExecutors, long horizonMillis) {
    this.environment = environment;
    this.maxExecutors = maxExecutors;
    this.horizonMillis = horizonMillis;
  }

  @Override
  public Decision evaluate(long nowMillis, BatchAllocationPolicy.Load load) {
    List<IdleExecutor> idle = load.idle();
    int target = Math.min(maxExecutors, environment.executorsNeededWithin(horizonMillis));
    int surplus = environment.containersHeld() - target;
    List<String> remove = new ArrayList<>();
    for (int i = 0; i < idle.size() && remove.size() < surplus; i++) {
      remove.add(idle.get(i).executorId());
    }
    return new Decision(target, remove);
  }

  @Override
  public String toString() {
    return "oracle";
  }
}
