package dev.tide.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Finding the thread that is ending the JVM from the stacks a shutdown hook sees: the stacks here
 * are those Java 17 shows (copied from a hook's {@code Thread.getAllStackTraces()}).
 */
class UserCodeExitTest {
  private final Thread task = new Thread("tide-task-1");
  private final Thread signal = new Thread("SIGTERM handler");
  private final Thread hook = new Thread("tide-executor-shutdown");

  private static StackTraceElement frame(String cls, String method, String file, int line) {
    return new StackTraceElement(cls, method, file, line);
  }

  /** A task thread blocked in System.exit, waiting for the hooks to end. */
  private static StackTraceElement[] systemExitStack() {
    return new StackTraceElement[] {
        frame("java.lang.Object", "wait", "Object.java", -2),
        frame("java.lang.Thread", "join", "Thread.java", 1304),
        frame("java.lang.ApplicationShutdownHooks", "runHooks", "ApplicationShutdownHooks.java",
            107),
        frame("java.lang.Shutdown", "runHooks", "Shutdown.java", 130),
        frame("java.lang.Shutdown", "exit", "Shutdown.java", 173),
        frame("java.lang.Runtime", "exit", "Runtime.java", 115),
        frame("java.lang.System", "exit", "System.java", 1877),
        frame("com.example.ExitingMapper", "map", "ExitingMapper.java", 25),
        frame("dev.tide.executor.TaskRunner", "runMap", "TaskRunner.java", 100),
        frame("java.lang.Thread", "run", "Thread.java", 840)};
  }

  /** What SIGTERM's thread shows: Shutdown.exit, but no Runtime.exit. */
  private static StackTraceElement[] signalStack() {
    return new StackTraceElement[] {
        frame("java.lang.Thread", "join", "Thread.java", 1304),
        frame("java.lang.Shutdown", "exit", "Shutdown.java", 173),
        frame("java.lang.Terminator$1", "handle", "Terminator.java", 51),
        frame("jdk.internal.misc.Signal$1", "run", "Signal.java", 219),
        frame("java.lang.Thread", "run", "Thread.java", 840)};
  }

  @Test
  void findsTheThreadInSystemExitAndItsCaller() {
    Map<Thread, StackTraceElement[]> stacks = new LinkedHashMap<>();
    stacks.put(hook, new StackTraceElement[] {frame("java.lang.Runtime", "exit", "R.java", 1)});
    stacks.put(task, systemExitStack());

    Optional<UserCodeExit> exit = UserCodeExit.find(stacks, hook);

    assertTrue(exit.isPresent());
    assertSame(task, exit.get().thread());
    assertEquals("System.exit", exit.get().call());
    assertEquals("com.example.ExitingMapper.map(ExitingMapper.java:25)", exit.get().caller());
  }

  @Test
  void aDirectRuntimeExitIsNamedSo() {
    StackTraceElement[] stack = {
        frame("java.lang.Shutdown", "exit", "Shutdown.java", 173),
        frame("java.lang.Runtime", "exit", "Runtime.java", 115),
        frame("org.apache.hadoop.util.ExitUtil", "terminate", null, -1)};

    UserCodeExit exit = UserCodeExit.of(task, stack).orElseThrow();

    assertEquals("Runtime.exit", exit.call());
    assertEquals("org.apache.hadoop.util.ExitUtil.terminate(Unknown Source)", exit.caller());
  }

  @Test
  void aSignalOrTheLastThreadEndingIsNoUserExit() {
    Map<Thread, StackTraceElement[]> stacks = new LinkedHashMap<>();
    stacks.put(signal, signalStack());
    stacks.put(task, new StackTraceElement[] {
        frame("com.example.SlowMapper", "map", "SlowMapper.java", 9)});

    assertEquals(Optional.empty(), UserCodeExit.find(stacks, hook));
    assertEquals(Optional.empty(), UserCodeExit.find(Map.of(), hook));
  }

  @Test
  void theFailureNamesTheTaskTheCallAndTheCaller() {
    UserCodeExit exit = UserCodeExit.of(task, systemExitStack()).orElseThrow();

    String text = exit.describe("3", "map 0 (stage 0, attempt 1)");

    assertTrue(text.startsWith("user code called System.exit in task map 0 (stage 0, attempt 1)"
        + " on executor 3, at com.example.ExitingMapper.map(ExitingMapper.java:25); "), text);
    assertTrue(text.endsWith("the executor exits with status 58 and the task fails"), text);
  }

  @Test
  void anExitFromAThreadThatRunsNoTaskNamesTheThread() {
    Thread own = new Thread("user-pool-1");
    UserCodeExit exit = UserCodeExit.of(own, systemExitStack()).orElseThrow();

    String text = exit.describe("3", null);

    assertTrue(text.startsWith("user code called System.exit on thread user-pool-1 (no task's"
        + " thread) in executor 3, at com.example.ExitingMapper.map("), text);
    assertTrue(text.endsWith("its tasks run again elsewhere"), text);
  }
}
