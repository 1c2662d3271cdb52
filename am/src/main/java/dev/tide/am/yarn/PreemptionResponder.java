package dev.tide.am.yarn;

import dev.tide.am.allocation.PreemptionChoice;
import dev.tide.am.allocation.PreemptionChoice.Candidate;
import dev.tide.am.yarn.ExecutorContainers.Executor;
import dev.tide.am.yarn.ExecutorContainers.State;
import dev.tide.driver.events.EventName;
import dev.tide.driver.scheduler.ExecutorActivity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionContract;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.PreemptionResourceRequest;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.StrictPreemptionContract;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the RM's preemption messages (an allocate response's {@link PreemptionMessage}) with
 * the choice of {@link PreemptionChoice}: idle executors given back (released) first, then
 * those whose running tasks started last; busy containers the strict contract names get no new
 * tasks until YARN stops them. The driver hears of every executor concerned, so that a task
 * lost with it is rerun without counting as a failure; a container given back is released by
 * the AM and so never counts as an executor failure, nor does one YARN stops (exit status
 * PREEMPTED).
 *
 * <p>The RM repeats its message on every heartbeat while the preemption stands: containers
 * given back count towards what it asks until a heartbeat comes without a message, so an
 * unchanged request is not answered twice.
 *
 * <p>Not thread-safe: the allocator thread only.
 */
final class PreemptionResponder {
  private static final Logger LOG = LoggerFactory.getLogger(PreemptionResponder.class);

  private final ExecutorContainers containers;
  private final DriverCallbacks driver;
  /** Containers given back or drained for the preemption that stands, with their resource. */
  private final Map<ContainerId, Resource> answered = new HashMap<>();
  /** The last message, as text, so that each new one is logged once. */
  private String lastMessage = "";

  PreemptionResponder(ExecutorContainers containers, DriverCallbacks driver) {
    this.containers = containers;
    this.driver = driver;
  }

  /**
   * Answers one allocate response's preemption message (null: none, and the preemption that
   * stood is over).
   *
   * @return containers given back (released)
   */
  int respond(PreemptionMessage message) {
    if (message == null || (message.getStrictContract() == null
        && message.getContract() == null)) {
      answered.clear();
      lastMessage = "";
      return 0;
    }
    Set<String> strict = new TreeSet<>();
    StrictPreemptionContract strictContract = message.getStrictContract();
    if (strictContract != null && strictContract.getContainers() != null) {
      for (PreemptionContainer c : strictContract.getContainers()) {
        strict.add(c.getId().toString());
      }
    }
    long wantedMemory = 0;
    long wantedVcores = 0;
    Set<String> negotiable = new TreeSet<>();
    PreemptionContract contract = message.getContract();
    if (contract != null) {
      if (contract.getResourceRequest() != null) {
        for (PreemptionResourceRequest p : contract.getResourceRequest()) {
          ResourceRequest r = p.getResourceRequest();
          if (r != null && r.getCapability() != null) {
            int n = Math.max(1, r.getNumContainers());
            wantedMemory += r.getCapability().getMemorySize() * n;
            wantedVcores += (long) r.getCapability().getVirtualCores() * n;
          }
        }
      }
      if (contract.getContainers() != null) {
        for (PreemptionContainer c : contract.getContainers()) {
          negotiable.add(c.getId().toString());
        }
      }
    }
    List<Candidate> candidates = candidates();
    if (wantedMemory == 0 && wantedVcores == 0 && !negotiable.isEmpty()) {
      // Containers named without an amount: as much as they hold.
      for (Candidate c : candidates) {
        if (negotiable.contains(c.containerId())) {
          wantedMemory += c.memoryMb();
          wantedVcores += c.vcores();
        }
      }
    }
    String text = "strict " + strict + ", negotiable " + wantedMemory + " MB, " + wantedVcores
        + " vcores (the RM would take " + negotiable + ")";
    if (!text.equals(lastMessage)) {
      lastMessage = text;
      LOG.warn("YARN asks for resources back (preemption): {}", text);
      driver.logEvent(EventName.PREEMPTION_REQUESTED, "strictContainers", strict.toString(),
          "negotiableContainers", negotiable.toString(), "memoryMb", wantedMemory, "vcores",
          wantedVcores);
    }
    PreemptionChoice.Decision decision = PreemptionChoice.choose(candidates, strict, negotiable,
        wantedMemory, (int) Math.min(Integer.MAX_VALUE, wantedVcores));
    for (Candidate c : decision.drain()) {
      Executor executor = containers.byId(c.executorId());
      answered.put(executor.container.getId(), executor.container.getResource());
      LOG.info("Executor {} in container {} is preempted (strict contract): no new tasks; its"
          + " running tasks may finish until YARN stops it", c.executorId(), c.containerId());
      driver.logEvent(EventName.EXECUTOR_PREEMPTED, "executor", c.executorId(), "container",
          c.containerId(), "host", executor.host(), "how", "draining", "reason",
          "named in the strict contract; busy");
      driver.executorPreempted(c.executorId(), "YARN takes container " + c.containerId()
          + " back (strict contract)");
    }
    for (Candidate c : decision.giveBack()) {
      Executor executor = containers.byId(c.executorId());
      String why = strict.contains(c.containerId()) ? "named in the strict contract; idle"
          : c.idle() ? "idle" : "busy; its running tasks started last";
      LOG.info("Giving back executor {} in container {} to YARN (preemption): {}",
          c.executorId(), c.containerId(), why);
      driver.logEvent(EventName.EXECUTOR_PREEMPTED, "executor", c.executorId(), "container",
          c.containerId(), "host", executor.host(), "how", "given back", "reason", why);
      driver.executorPreempted(c.executorId(), "container " + c.containerId()
          + " given back to YARN (" + why + ")");
      answered.put(executor.container.getId(), executor.container.getResource());
      containers.release(executor, "preempted: given back to YARN (" + why + ")");
    }
    return decision.giveBack().size();
  }

  /** Every executor container, with what its executor does and whether it was answered. */
  private List<Candidate> candidates() {
    Map<String, ExecutorActivity> activity = new HashMap<>();
    for (ExecutorActivity a : driver.executorActivity()) {
      activity.put(a.executorId(), a);
    }
    List<Candidate> candidates = new ArrayList<>();
    Set<ContainerId> seen = new HashSet<>();
    for (Executor executor : containers.all()) {
      ContainerId id = executor.container.getId();
      seen.add(id);
      Resource r = executor.container.getResource();
      ExecutorActivity a = activity.get(executor.id);
      boolean idle = a == null || a.idle();
      long since = a == null ? executor.allocatedAtMillis
          : idle ? a.idleSinceMillis() : a.lastTaskStartMillis();
      boolean givenBack = executor.state == State.RELEASING || answered.containsKey(id);
      candidates.add(new Candidate(executor.id, id.toString(), r.getMemorySize(),
          r.getVirtualCores(), idle, since, givenBack));
    }
    // Given back and already completed: still counted while the preemption stands.
    answered.forEach((id, r) -> {
      if (!seen.contains(id)) {
        candidates.add(new Candidate("", id.toString(), r.getMemorySize(), r.getVirtualCores(),
            true, 0, true));
      }
    });
    return candidates;
  }
}
