package dev.tide.bench.mrcompare;

import java.util.Map;
import java.util.TreeSet;

/**
 * One run of one engine over one input size (a wordcount or a sort).
 *
 * @param engine "Tide" or "MapReduce"
 * @param size the nominal input size of the run (bytes)
 * @param inputBytes bytes of input text as written (each file ends a line past its size)
 * @param appId the YARN application
 * @param wallMillis from the client's submission to the RM reporting the application ended
 * @param usage what YARN reports about the ended application
 * @param outputCheck for wordcount "exact" when the output equals the generator's counts; for
 *     a sort "valid" when TeraValidate found no error and the checksums match; otherwise what
 *     differed
 * @param tideTasks Tide's task figures from its event log, null for MapReduce
 * @param loadBefore /proc/loadavg just before the run, "" if not recorded
 * @param loadAfter /proc/loadavg just after the run, "" if not recorded
 */
record EngineRun(String engine, long size, long inputBytes, String appId, long wallMillis,
    ApplicationUsage usage, String outputCheck, TideTaskFigures tideTasks, String loadBefore,
    String loadAfter) {

  EngineRun(String engine, long size, long inputBytes, String appId, long wallMillis,
      ApplicationUsage usage, String outputCheck) {
    this(engine, size, inputBytes, appId, wallMillis, usage, outputCheck, null, "", "");
  }

  /** The output was checked and found right ("exact" counts, or a "valid" sort). */
  boolean exact() {
    return usage.succeeded() && (outputCheck.equals("exact") || outputCheck.equals("valid"));
  }

  EngineRun withCheck(String check) {
    return new EngineRun(engine, size, inputBytes, appId, wallMillis, usage, check, tideTasks,
        loadBefore, loadAfter);
  }

  EngineRun withTideTasks(TideTaskFigures figures) {
    return new EngineRun(engine, size, inputBytes, appId, wallMillis, usage, outputCheck,
        figures, loadBefore, loadAfter);
  }

  EngineRun withLoad(String before, String after) {
    return new EngineRun(engine, size, inputBytes, appId, wallMillis, usage, outputCheck,
        tideTasks, before, after);
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
