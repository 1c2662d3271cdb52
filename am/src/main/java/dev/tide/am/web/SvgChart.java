package dev.tide.am.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart drawn on the server as inline SVG (no script, nothing loaded from elsewhere):
 * step lines over time, one per series, with axes, gridlines and a legend. Each series' points
 * are (seconds from the start, value); the time axis is labelled with wall-clock times
 * ({@code HH:mm:ss} in the AM's or report writer's time zone) at round steps. A series of more than {@value #MAX_POINTS} points (a stream
 * that ran for hours) is drawn from the lowest and highest point of each of {@code MAX_POINTS / 2}
 * equal time slices, so a page stays small and a spike still shows.
 */
final class SvgChart {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 260;
  private static final int LEFT = 50;
  private static final int RIGHT = 150;
  private static final int TOP = 12;
  private static final int BOTTOM = 30;
  static final int MAX_POINTS = 1_000;

  /** One line of the chart. */
  record Series(String name, String color, boolean dashed, List<double[]> points) {}

  /** Steps between time labels, seconds: the first that gives at most 6 labels. */
  private static final long[] TIME_STEPS = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
      3600, 7200, 10800, 21600, 43200, 86400};

  private final String id;
  private final String yLabel;
  private final long startMillis;
  private final List<Series> series = new ArrayList<>();

  /** @param startMillis the wall-clock time (epoch ms) of x = 0 */
  SvgChart(String id, String yLabel, long startMillis) {
    this.id = id;
    this.yLabel = yLabel;
    this.startMillis = startMillis;
  }

  SvgChart add(String name, String color, boolean dashed, List<double[]> points) {
    series.add(new Series(name, color, dashed, thin(points)));
    return this;
  }

  /** At most {@link #MAX_POINTS}: each time slice's lowest and highest point, in time order. */
  static List<double[]> thin(List<double[]> points) {
    if (points.size() <= MAX_POINTS) {
      return points;
    }
    int slices = MAX_POINTS / 2;
    double from = points.get(0)[0];
    double span = Math.max(1e-9, points.get(points.size() - 1)[0] - from);
    List<double[]> kept = new ArrayList<>(MAX_POINTS);
    int i = 0;
    for (int slice = 0; slice < slices && i < points.size(); slice++) {
      double end = slice == slices - 1 ? Double.POSITIVE_INFINITY
          : from + span * (slice + 1) / slices;
      int low = -1;
      int high = -1;
      for (; i < points.size() && points.get(i)[0] < end; i++) {
        if (low < 0 || points.get(i)[1] < points.get(low)[1]) {
          low = i;
        }
        if (high < 0 || points.get(i)[1] > points.get(high)[1]) {
          high = i;
        }
      }
      if (low >= 0) {
        kept.add(points.get(Math.min(low, high)));
        if (low != high) {
          kept.add(points.get(Math.max(low, high)));
        }
      }
    }
    return kept;
  }

  String render() {
    double maxX = 1;
    double maxY = 1;
    for (Series s : series) {
      for (double[] p : s.points()) {
        maxX = Math.max(maxX, p[0]);
        maxY = Math.max(maxY, p[1]);
      }
    }
    maxY = niceCeiling(maxY);
    double plotW = WIDTH - LEFT - RIGHT;
    double plotH = HEIGHT - TOP - BOTTOM;
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT, "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org"
        + "/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", id, WIDTH,
        HEIGHT, WIDTH, HEIGHT));
    // Whole numbers (executors, tasks) get a gridline each while they are few.
    int ticks = maxY <= 8 && maxY == Math.rint(maxY) ? (int) maxY : 4;
    for (int i = 0; i <= ticks; i++) {
      double v = maxY * i / ticks;
      double y = TOP + plotH - plotH * i / ticks;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
          + " stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">"
          + "%s</text>", LEFT, y, LEFT + plotW, y, LEFT - 4, y + 4, label(v)));
    }
    timeLabels(svg, maxX, plotW);
    svg.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%d\" font-size=\"11\""
        + " transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s</text>",
        TOP + (int) plotH / 2, TOP + (int) plotH / 2, Html.escape(yLabel)));
    int legendY = TOP + 12;
    for (Series s : series) {
      StringBuilder path = new StringBuilder();
      double lastY = Double.NaN;
      for (double[] p : s.points()) {
        double x = LEFT + plotW * p[0] / maxX;
        double y = TOP + plotH - plotH * Math.min(p[1], maxY) / maxY;
        if (path.length() == 0) {
          path.append(String.format(Locale.ROOT, "M%.1f %.1f", x, y));
        } else {
          path.append(String.format(Locale.ROOT, " H%.1f V%.1f", x, y));
        }
        lastY = y;
      }
      if (!Double.isNaN(lastY)) {
        svg.append(String.format(Locale.ROOT, "<path class=\"series\" data-series=\"%s\""
            + " data-points=\"%d\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>",
            Html.escape(s.name()), s.points().size(), path, s.color(),
            s.dashed() ? " stroke-dasharray=\"5 3\"" : ""));
      }
      svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
          + " stroke=\"%s\" stroke-width=\"2\"%s/><text x=\"%.1f\" y=\"%d\" font-size=\"11\">%s"
          + "</text>", LEFT + plotW + 10, legendY, LEFT + plotW + 28, legendY, s.color(),
          s.dashed() ? " stroke-dasharray=\"5 3\"" : "", LEFT + plotW + 32, legendY + 4,
          Html.escape(s.name())));
      legendY += 16;
    }
    return svg.append("</svg>").toString();
  }

  /** Wall-clock labels at round times (whole steps of the local clock) along the x axis. */
  private void timeLabels(StringBuilder svg, double maxX, double plotW) {
    long step = TIME_STEPS[TIME_STEPS.length - 1];
    for (long candidate : TIME_STEPS) {
      if (maxX / candidate <= 6) {
        step = candidate;
        break;
      }
    }
    long stepMillis = step * 1000;
    long offset = java.time.ZoneId.systemDefault().getRules()
        .getOffset(java.time.Instant.ofEpochMilli(startMillis)).getTotalSeconds() * 1000L;
    long local = startMillis + offset;
    long first = Math.floorDiv(local + stepMillis - 1, stepMillis) * stepMillis - offset;
    for (long t = first; t <= startMillis + maxX * 1000; t += stepMillis) {
      double x = LEFT + plotW * ((t - startMillis) / 1000.0) / maxX;
      svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\""
          + " text-anchor=\"middle\">%s</text>", x, HEIGHT - 10, UiPages.time(t)));
    }
  }

  private static double niceCeiling(double v) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
    for (double step : new double[] {1, 2, 2.5, 5, 10}) {
      if (step * magnitude >= v) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  private static String label(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }
}
