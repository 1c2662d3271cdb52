package dev.tide.driver.job;

import java.util.Iterator;

/**
 * Folds the values of one key into one value on the map side, before they are shuffled (as
 * MapReduce's combiner): it runs on each spill of the sort buffer and when the spills are merged,
 * so it may see a key any number of times and must give the same result however the values are
 * grouped (associative and commutative, e.g. a sum). A new instance is made for every task
 * attempt; named by class in the {@link JobPlan}.
 */
public interface Combiner {
  /** @param values at least one value of {@code key} */
  byte[] combine(byte[] key, Iterator<byte[]> values) throws Exception;
}
