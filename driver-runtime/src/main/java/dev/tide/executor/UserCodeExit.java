package dev.tide.executor;

import java.util.Map;
import java.util.Optional;

/**
 * A call of {@code System.exit} or {@code Runtime.exit} that is ending this JVM, found from the
 * threads' stacks while the JVM's shutdown hooks run.
 *
 * <p>Why it can be found: {@code Runtime.exit} runs the shutdown hooks on the calling thread and
 * waits for them there, so while a hook runs, the thread that asked for the exit is still alive
 * and its stack holds {@code java.lang.Runtime.exit} (below {@code java.lang.System.exit} when
 * called that way) above the code that called it. A JVM ended by a signal (SIGTERM from the
 * NodeManager) runs its hooks from the signal's thread, whose stack holds
 * {@code java.lang.Shutdown.exit} but no {@code Runtime.exit}; a JVM ended by its last non-daemon
 * thread has no such frame at all. The executor's own exit (ExecutorMain's) is told apart by the
 * caller, not here.
 *
 * <p>What it cannot see: the status the user passed (Java 17 keeps it in no field; the JVM would
 * exit with it, but the executor halts with its own status instead), and {@code Runtime.halt},
 * which runs no hooks.
 *
 * @param thread the thread that asked for the exit
 * @param call {@code System.exit} or {@code Runtime.exit}
 * @param caller the frame that called it (class, method, file and line), or "unknown"
 */
public record UserCodeExit(Thread thread, String call, String caller) {
  private static final String RUNTIME = "java.lang.Runtime";
  private static final String SYSTEM = "java.lang.System";

  /**
   * The thread among {@code stacks} (as {@link Thread#getAllStackTraces()} gives them) that is
   * inside {@code Runtime.exit}, other than {@code self}; empty when none is (a signal, or the
   * last thread ending).
   */
  public static Optional<UserCodeExit> find(Map<Thread, StackTraceElement[]> stacks,
      Thread self) {
    for (Map.Entry<Thread, StackTraceElement[]> e : stacks.entrySet()) {
      if (e.getKey() == self) {
        continue;
      }
      Optional<UserCodeExit> exit = of(e.getKey(), e.getValue());
      if (exit.isPresent()) {
        return exit;
      }
    }
    return Optional.empty();
  }

  /** The exit call on {@code stack} (innermost frame first), if it holds one. */
  static Optional<UserCodeExit> of(Thread thread, StackTraceElement[] stack) {
    for (int i = 0; i < stack.length; i++) {
      if (isFrame(stack[i], RUNTIME, "exit")) {
        int next = i + 1;
        String call = "Runtime.exit";
        if (next < stack.length && isFrame(stack[next], SYSTEM, "exit")) {
          call = "System.exit";
          next++;
        }
        String caller = next < stack.length ? frame(stack[next]) : "unknown";
        return Optional.of(new UserCodeExit(thread, call, caller));
      }
    }
    return Optional.empty();
  }

  private static boolean isFrame(StackTraceElement frame, String className, String method) {
    return frame.getClassName().equals(className) && frame.getMethodName().equals(method);
  }

  /** {@code class.method(File.java:12)}, without the module and class loader prefixes. */
  private static String frame(StackTraceElement f) {
    String where = f.isNativeMethod() ? "Native Method"
        : f.getFileName() == null ? "Unknown Source"
        : f.getLineNumber() >= 0 ? f.getFileName() + ":" + f.getLineNumber() : f.getFileName();
    return f.getClassName() + "." + f.getMethodName() + "(" + where + ")";
  }

  /**
   * The failure of the task attempt {@code task} (as {@code TaskDescription.describe()}), or of
   * the executor when the exit came from a thread that runs no task.
   */
  public String describe(String executorId, String task) {
    String where = task == null
        ? " on thread " + thread.getName() + " (no task's thread) in executor " + executorId
        : " in task " + task + " on executor " + executorId;
    return "user code called " + call + where + ", at " + caller + "; a task may not end its"
        + " JVM (throw an exception to fail it): the executor exits with status "
        + ExecutorBackend.EXIT_USER_CODE + (task == null ? " and its tasks run again elsewhere"
        : " and the task fails");
  }
}
