package dev.tide.driver.streaming;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Records per second over time, as {@code tide.streaming.rate.schedule} writes it: steps
 * {@code 1000@0s,4000@120s,1500@300s} (each rate holds from its time on; before the first time
 * the first rate), a ramp {@code ramp(1000,4000,300s)} (linear, then holds), or a sine
 * {@code sine(2000,1000,600s)} (mean, amplitude, period). {@link #recordsUntil} is the exact
 * integral, so record counts never drift with the batch interval.
 */
public final class RateSchedule {
  private static final Pattern STEP = Pattern.compile("(\\d+(?:\\.\\d+)?)@(\\d+(?:\\.\\d+)?)(ms|s|m)?");
  private static final Pattern FUNCTION =
      Pattern.compile("(ramp|sine)\\((\\d+(?:\\.\\d+)?),(\\d+(?:\\.\\d+)?),(\\d+(?:\\.\\d+)?)(ms|s|m)?\\)");

  private enum Kind { STEPS, RAMP, SINE }

  private final Kind kind;
  private final double[] rates;
  private final double[] times;
  private final String text;

  private RateSchedule(Kind kind, double[] rates, double[] times, String text) {
    this.kind = kind;
    this.rates = rates;
    this.times = times;
    this.text = text;
  }

  /** @throws IllegalArgumentException saying what a schedule looks like */
  public static RateSchedule parse(String text) {
    String compact = text.replaceAll("\\s+", "").toLowerCase(Locale.ROOT);
    Matcher f = FUNCTION.matcher(compact);
    if (f.matches()) {
      double a = Double.parseDouble(f.group(2));
      double b = Double.parseDouble(f.group(3));
      double seconds = seconds(f.group(4), f.group(5));
      if (seconds <= 0) {
        throw bad(text, "its duration or period must be above 0");
      }
      if (f.group(1).equals("sine") && b > a) {
        throw bad(text, "a sine's amplitude must not exceed its mean (no negative rates)");
      }
      return new RateSchedule(f.group(1).equals("ramp") ? Kind.RAMP : Kind.SINE,
          new double[] {a, b}, new double[] {seconds}, text);
    }
    List<double[]> steps = new ArrayList<>();
    for (String part : compact.split(",")) {
      Matcher m = STEP.matcher(part);
      if (!m.matches()) {
        throw bad(text, "'" + part + "' is not rate@time");
      }
      double at = seconds(m.group(2), m.group(3));
      if (!steps.isEmpty() && at <= steps.get(steps.size() - 1)[1]) {
        throw bad(text, "step times must increase");
      }
      steps.add(new double[] {Double.parseDouble(m.group(1)), at});
    }
    double[] rates = new double[steps.size()];
    double[] times = new double[steps.size()];
    for (int i = 0; i < steps.size(); i++) {
      rates[i] = steps.get(i)[0];
      times[i] = steps.get(i)[1];
    }
    return new RateSchedule(Kind.STEPS, rates, times, text);
  }

  /** Records per second at {@code seconds} after the stream started. */
  public double rateAt(double seconds) {
    return switch (kind) {
      case RAMP -> rates[0] + (rates[1] - rates[0]) * Math.min(1, Math.max(0, seconds) / times[0]);
      case SINE -> rates[0] + rates[1] * Math.sin(2 * Math.PI * seconds / times[0]);
      case STEPS -> {
        double rate = rates[0];
        for (int i = 0; i < rates.length && times[i] <= seconds; i++) {
          rate = rates[i];
        }
        yield rate;
      }
    };
  }

  /** Records that arrived from the start to {@code millis} after it (rounded down). */
  public long recordsUntil(long millis) {
    double t = Math.max(0, millis) / 1000.0;
    double total = switch (kind) {
      case RAMP -> {
        double d = times[0];
        double slope = (rates[1] - rates[0]) / d;
        yield t <= d ? rates[0] * t + slope * t * t / 2
            : rates[0] * d + slope * d * d / 2 + rates[1] * (t - d);
      }
      case SINE -> rates[0] * t
          + rates[1] * times[0] / (2 * Math.PI) * (1 - Math.cos(2 * Math.PI * t / times[0]));
      case STEPS -> {
        double sum = 0;
        for (int i = 0; i < rates.length; i++) {
          double from = i == 0 ? 0 : times[i];
          double to = i + 1 < rates.length ? times[i + 1] : Double.MAX_VALUE;
          if (t > from) {
            sum += rates[i] * (Math.min(t, to) - from);
          }
        }
        yield sum;
      }
    };
    return (long) Math.floor(total + 1e-9);
  }

  @Override
  public String toString() {
    return text;
  }

  private static double seconds(String number, String unit) {
    double n = Double.parseDouble(number);
    return unit == null || unit.equals("s") ? n : unit.equals("ms") ? n / 1000 : n * 60;
  }

  private static IllegalArgumentException bad(String text, String why) {
    return new IllegalArgumentException("bad value for tide.streaming.rate.schedule = '" + text
        + "': " + why + "; expected steps such as 1000@0s,4000@120s, ramp(1000,4000,300s) or"
        + " sine(2000,1000,600s)");
  }
}
