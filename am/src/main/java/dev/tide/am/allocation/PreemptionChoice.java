package dev.tide.am.allocation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Which executors to give back when YARN asks for resources back (a preemption message), so
 * that the work lost is the least. DESIGN.md "Stuck work and nodes that leave".
 *
 * <p>Strict contract: the named containers will go whatever the application does. Those that
 * are idle (or whose executor has not started yet) are given back at once; the busy ones get
 * no new tasks and their running tasks may finish until YARN stops them.
 *
 * <p>Negotiable contract: YARN wants an amount of resources back and lets the application
 * choose which containers. They are chosen, until the amount is covered (see
 * {@link #covered}: memory or vcores, whichever the RM counted),
 * in this order: executors not started yet or idle (those in containers the contract names
 * first, then the longest idle first), then busy executors (those named first) whose running
 * tasks started last (the least work lost: the map outputs they
 * finished are served by the node's {@code tide_shuffle} service and stay). Containers in the
 * strict contract, or already given back, count towards the amount. The containers a
 * negotiable contract names are those the ResourceManager kills when it is not given enough in
 * time ({@code max_wait_before_kill}); while its demand lasts it kills them even if the amount was
 * given back in other containers (seen on the multi-process cluster: 2 idle executors given back,
 * then the 2 idle ones it had named killed too), so an idle named one goes before any other.
 *
 * <p>Pure and immutable: no YARN types, no clock.
 */
public final class PreemptionChoice {
  private PreemptionChoice() {}

  /**
   * One executor's container as the choice sees it.
   *
   * @param idle true when it runs no task (or has not started)
   * @param sinceMillis for an idle executor, since when it is idle; for a busy one, when its
   *     latest running task started
   * @param givenBack already released by the AM, its completion not reported yet
   */
  public record Candidate(String executorId, String containerId, long memoryMb, int vcores,
      boolean idle, long sinceMillis, boolean givenBack) {}

  /**
   * What to do.
   *
   * @param giveBack containers to release now
   * @param drain busy containers of the strict contract: no new tasks, they go when YARN stops
   *     them
   */
  public record Decision(List<Candidate> giveBack, List<Candidate> drain) {
    public boolean isEmpty() {
      return giveBack.isEmpty() && drain.isEmpty();
    }
  }

  /** The order in which executors are given back when no container is named. */
  public static final Comparator<Candidate> ORDER = order(Set.of());

  /** The order in which executors are given back (see the class comment). */
  static Comparator<Candidate> order(Set<String> named) {
    return Comparator.comparing((Candidate c) -> !c.idle())
        .thenComparing((Candidate c) -> !named.contains(c.containerId()))
        .thenComparing((Candidate c) -> c.idle() ? c.sinceMillis() : -c.sinceMillis())
        .thenComparing(Candidate::containerId);
  }

  /**
   * @param candidates the application's executor containers
   * @param strict container ids YARN will take (strict contract), possibly empty
   * @param wantedMemoryMb memory YARN wants back under the negotiable contract (0: none)
   * @param wantedVcores vcores YARN wants back under the negotiable contract (0: none)
   */
  public static Decision choose(List<Candidate> candidates, Set<String> strict,
      long wantedMemoryMb, int wantedVcores) {
    return choose(candidates, strict, Set.of(), wantedMemoryMb, wantedVcores);
  }

  /**
   * @param named container ids the negotiable contract names (the RM's own picks), given back
   *     before the others of the same kind (idle, busy)
   */
  public static Decision choose(List<Candidate> candidates, Set<String> strict,
      Set<String> named, long wantedMemoryMb, int wantedVcores) {
    List<Candidate> giveBack = new ArrayList<>();
    List<Candidate> drain = new ArrayList<>();
    long memory = 0;
    long vcores = 0;
    for (Candidate c : candidates) {
      if (c.givenBack()) {
        memory += c.memoryMb();
        vcores += c.vcores();
      } else if (strict.contains(c.containerId())) {
        memory += c.memoryMb();
        vcores += c.vcores();
        (c.idle() ? giveBack : drain).add(c);
      }
    }
    List<Candidate> free = new ArrayList<>();
    for (Candidate c : candidates) {
      if (!c.givenBack() && !strict.contains(c.containerId())) {
        free.add(c);
      }
    }
    free.sort(order(named));
    for (Candidate c : free) {
      if (covered(memory, vcores, wantedMemoryMb, wantedVcores)) {
        break;
      }
      giveBack.add(c);
      memory += c.memoryMb();
      vcores += c.vcores();
    }
    return new Decision(List.copyOf(giveBack), List.copyOf(drain));
  }

  /**
   * Whether what is given back covers what YARN asks for. The CapacityScheduler asks for a
   * number of its minimum allocations (128 MB and 1 vcore, say), counted by its resource
   * calculator on the dominant resource (memory alone by default): 8 x (128 MB, 1 vcore) means
   * 1024 MB, or 8 vcores where vcores dominate, not both. So covering either is enough; asking
   * for both would give back every executor of 1 vcore to cover the vcores.
   */
  private static boolean covered(long memory, long vcores, long wantedMemoryMb,
      int wantedVcores) {
    boolean memoryCovered = memory >= wantedMemoryMb;
    boolean vcoresCovered = vcores >= wantedVcores;
    if (wantedMemoryMb <= 0 || wantedVcores <= 0) {
      return memoryCovered && vcoresCovered;
    }
    return memoryCovered || vcoresCovered;
  }
}
