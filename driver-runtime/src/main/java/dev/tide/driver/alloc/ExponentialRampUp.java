package dev.tide.driver.alloc;

/**
 * The default ramp-up: add the current step (1, 2, 4, 8 ... while each step is used in full).
 * Cautious: it needs about log2(n) backlog periods to reach n executors. Stateless.
 */
public final class ExponentialRampUp implements RampUp {
  @Override
  public long raise(int base, int step, int activeExecutors) {
    return (long) base + step;
  }

  @Override
  public String toString() {
    return "exponential";
  }
}
