package dev.tide.driver.job;

/**
 * One key/value record of a shuffle. {@code input} says which parent stage emitted it (its
 * position among the reading stage's parents; always 0 for a stage with one parent), so a join's
 * reducer can tell its inputs apart: within one key, records of input 0 come first.
 */
public record Record(byte[] key, byte[] value, int input) {
  public Record(byte[] key, byte[] value) {
    this(key, value, 0);
  }
}
