package dev.tide.bench.mrcompare;

import java.util.Map;
import java.util.TreeSet;

/**
 * One wordcount run of one engine over one input size.
 *
 * @param engine "Tide" or "MapReduce"
 * @param size the nominal input size of the run (bytes)
 * @param inputBytes bytes of input text as written (each file ends a line past its size)
 * @param appId the YARN application
 * @param wallMillis from the client's submission to the RM reporting the application ended
 * @param usage what YARN reports about the ended application
 * @param outputCheck "exact" when the output equals the generator's counts, otherwise what
 *     differed
 */
record EngineRun(String engine, long size, long inputBytes, String appId, long wallMillis,
    ApplicationUsage usage, String outputCheck) {

  boolean exact() {
    return usage.succeeded() && outputCheck.equals("exact");
  }

  /** "exact", or how many words are missing, extra or miscounted, with a first example. */
  static String compare(Map<String, Long> expected, Map<String, Long> actual) {
    if (expected.equals(actual)) {
      return "exact";
    }
    TreeSet<String> words = new TreeSet<>(expected.keySet());
    words.addAll(actual.keySet());
    int missing = 0;
    int extra = 0;
    int wrong = 0;
    String first = null;
    for (String word : words) {
      Long want = expected.get(word);
      Long got = actual.get(word);
      if (want != null && want.equals(got)) {
        continue;
      }
      if (got == null) {
        missing++;
      } else if (want == null) {
        extra++;
      } else {
        wrong++;
      }
      if (first == null) {
        first = word + " expected " + want + " got " + got;
      }
    }
    return "WRONG: " + missing + " missing, " + extra + " extra, " + wrong + " miscounted of "
        + expected.size() + " words (" + first + ")";
  }
}
