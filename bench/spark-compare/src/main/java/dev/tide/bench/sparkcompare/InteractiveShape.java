package dev.tide.bench.sparkcompare;

import java.util.List;

/**
 * Workload d's shape, the same for both engines: {@code bursts} bursts of {@code jobs} small
 * wordcount jobs each over {@code input}, the first burst at once, then an idle gap of
 * {@code gapSeconds} (longer than the executors' idle timeout) before each later burst.
 * Arguments: {@code <input> <output> <bursts> <jobs> <gapSeconds> [expectLeadSeconds]}; each
 * job writes {@code output/burst-B-job-J}, the driver writes {@code output/latencies} (one
 * {@code burst<TAB>job<TAB>latencyMs} line per job).
 */
record InteractiveShape(String input, String output, int bursts, int jobs, long gapMillis,
    long expectLeadMillis) {
  static InteractiveShape parse(List<String> args) {
    if (args.size() < 5 || args.size() > 6) {
      throw new IllegalArgumentException("usage: <input> <output> <bursts> <jobs> <gapSeconds>"
          + " [expectLeadSeconds]; got " + args);
    }
    long lead = args.size() == 6 ? Long.parseLong(args.get(5)) * 1000 : 0;
    return new InteractiveShape(args.get(0), args.get(1), Integer.parseInt(args.get(2)),
        Integer.parseInt(args.get(3)), Long.parseLong(args.get(4)) * 1000, lead);
  }

  String jobOutput(int burst, int job) {
    return output + "/burst-" + burst + "-job-" + job;
  }
}
