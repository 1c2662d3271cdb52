package dev.tide.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The numbers the issue asks for, computed from the timelines of one burst. */
record BurstStats(String label, long makespanMillis, List<Long> timeToFirstExecutorMillis,
    int maxAmsWithoutExecutor, int succeeded, int total) {

  static BurstStats of(String label, List<AppTimeline> apps) {
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    List<Long> toFirst = new ArrayList<>();
    int succeeded = 0;
    for (AppTimeline app : apps) {
      start = Math.min(start, app.submitted());
      end = Math.max(end, app.finished());
      toFirst.add(app.timeToFirstExecutor());
      if (app.finalStatus() == org.apache.hadoop.yarn.api.records.FinalApplicationStatus.SUCCEEDED) {
        succeeded++;
      }
    }
    return new BurstStats(label, end - start, toFirst, maxOverlap(apps), succeeded, apps.size());
  }

  /** The most half-open {@code [start, end)} AM-without-executor intervals covering one instant. */
  static int maxOverlap(List<AppTimeline> apps) {
    int max = 0;
    for (AppTimeline at : apps) {
      long instant = at.amWithoutExecutor()[0];
      int covering = 0;
      for (AppTimeline other : apps) {
        long[] interval = other.amWithoutExecutor();
        if (interval[0] <= instant && instant < interval[1]) {
          covering++;
        }
      }
      max = Math.max(max, covering);
    }
    return max;
  }

  static String header() {
    return String.format(Locale.ROOT, "%-34s %9s %6s  %s", "run", "makespan", "maxAM0",
        "time to first executor per app, s (submission order)");
  }

  String row() {
    StringBuilder perApp = new StringBuilder();
    for (long millis : timeToFirstExecutorMillis) {
      perApp.append(millis < 0 ? "  never" : String.format(Locale.ROOT, " %6.1f", millis / 1000.0));
    }
    return String.format(Locale.ROOT, "%-34s %8.1fs %6d  %s   (%d/%d succeeded)", label,
        makespanMillis / 1000.0, maxAmsWithoutExecutor, perApp, succeeded, total);
  }
}
