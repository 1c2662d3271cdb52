package dev.tide.driver.job;

/**
 * One key/value record of a shuffle (named {@code Record} before issue 37: that name clashed
 * with {@code java.lang.Record} in a job that imports {@code dev.tide.driver.job.*}). {@code input} says which parent stage emitted it (its
 * position among the reading stage's parents; always 0 for a stage with one parent), so a join's
 * reducer can tell its inputs apart: within one key, records of input 0 come first.
 */
public record KeyValue(byte[] key, byte[] value, int input) {
  public KeyValue(byte[] key, byte[] value) {
    this(key, value, 0);
  }
}
