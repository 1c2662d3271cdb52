package dev.tide.am.web;

import dev.tide.app.AppOptions;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pages of the AM's web UI and of the history report, rendered from an {@link AppModel}:
 * Overview, Stages, Executors and Allocation. Self-contained HTML: inline CSS and SVG, no
 * script, no link to anything outside the page but the NodeManagers' container logs. Links
 * between pages are relative, so they work behind the ResourceManager's proxy.
 */
public final class UiPages {
  /** The pages, in the order of the navigation bar: path and title. */
  public static final List<String[]> PAGES = List.of(new String[] {"", "Overview"},
      new String[] {"stages", "Stages"}, new String[] {"executors", "Executors"},
      new String[] {"allocation", "Allocation"});
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
  private static final String CSS = "body{font-family:sans-serif;margin:16px;color:#222}"
      + "nav a{margin-right:14px}table{border-collapse:collapse;margin:8px 0 16px}"
      + "th,td{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}"
      + "th{background:#f2f2f2}td.n{text-align:right}.failed{color:#b00}.delayed{color:#b60}"
      + "h1{font-size:20px}h2{font-size:16px;margin-top:22px}";

  private UiPages() {}

  /** One live page; {@code path} is one of {@link #PAGES}. */
  public static String page(String path, AppModel model) {
    return page(path, Map.of(), model);
  }

  /**
   * One live page, with its query parameters (the Executors page's {@code sort}, {@code order}
   * and {@code page}: {@link ExecutorsTable}).
   */
  public static String page(String path, Map<String, String> query, AppModel model) {
    String title = "Overview";
    String body;
    switch (path) {
      case "stages" -> {
        title = "Stages";
        body = stages(model);
      }
      case "executors" -> {
        title = "Executors";
        body = ExecutorsTable.render(model, query, true);
      }
      case "allocation" -> {
        title = "Allocation";
        body = allocation(model, PAGE_ROWS);
      }
      default -> body = overview(model);
    }
    StringBuilder nav = new StringBuilder("<nav>");
    for (String[] p : PAGES) {
      nav.append("<a href=\"").append(p[0].isEmpty() ? "./" : p[0]).append("\">")
          .append(p[1]).append("</a>");
    }
    nav.append("<a href=\"api/v1/app\">JSON</a></nav>");
    return document(title + " - " + model.appId(), nav + "<h1>" + Html.escape(title) + "</h1>"
        + body);
  }

  /** The history report: every page's content in one document. */
  public static String report(AppModel model) {
    return document("Tide " + model.appId() + " (" + model.job() + ")",
        "<nav><a href=\"#overview\">Overview</a><a href=\"#stages\">Stages</a>"
        + "<a href=\"#executors\">Executors</a><a href=\"#allocation\">Allocation</a></nav>"
        + "<h1 id=\"overview\">Overview</h1>" + overview(model)
        + "<h1 id=\"stages\">Stages</h1>" + stages(model)
        + "<h1 id=\"executors\">Executors</h1>" + ExecutorsTable.render(model, Map.of(), false)
        + "<h1 id=\"allocation\">Allocation</h1>" + allocation(model, Integer.MAX_VALUE));
  }

  private static String document(String title, String body) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
        + Html.escape(title) + "</title><style>" + CSS + "</style></head><body>" + body
        + "</body></html>";
  }

  static String overview(AppModel m) {
    StringBuilder html = new StringBuilder("<table id=\"overview-table\">");
    row(html, "Application", m.appId());
    row(html, "Job", m.job());
    row(html, "Arguments", argumentsText(m.jobArgs()));
    row(html, "State", m.result());
    row(html, "Started", time(m.startMillis()));
    row(html, "Duration", seconds((m.endMillis() < 0 ? System.currentTimeMillis()
        : m.endMillis()) - m.startMillis()));
    if (!m.diagnostics().isEmpty()) {
      row(html, "Diagnostics", m.diagnostics());
    }
    List<AppModel.Stage> stages = m.stages();
    int done = 0;
    int total = 0;
    for (AppModel.Stage s : stages) {
      done += s.done;
      total += s.tasks;
    }
    row(html, "Tasks", done + " done of " + total + " in " + stages.size() + " stages");
    long running = m.executors().stream().filter(x -> x.state.equals("running")).count();
    row(html, "Executors", running + " running, target " + m.target() + ", "
        + m.executors().size() + " ever");
    if (!m.batches().isEmpty()) {
      AppModel.Batch last = m.batches().get(m.batches().size() - 1);
      row(html, "Batches", m.batches().size() + " done; last " + last.records() + " records in "
          + last.processingMillis() + " ms, scheduling delay " + last.schedulingDelayMillis()
          + " ms");
    }
    html.append("</table><h2>Settings</h2><table id=\"settings-table\"><tr><th>key</th>"
        + "<th>value</th></tr>");
    m.settings().forEach((k, v) -> html.append("<tr><td>").append(Html.escape(k))
        .append("</td><td>").append(Html.escape(k.equals(AppOptions.JOB_ARGS.key())
            ? argumentsText(m.jobArgs()) : v)).append("</td></tr>"));
    return html.append("</table>").toString();
  }

  /**
   * Arguments as a person would type them: separated by spaces, one that is empty or holds a
   * space or quote in double quotes (escaped for HTML by the caller like every field).
   */
  static String argumentsText(List<String> args) {
    List<String> shown = new ArrayList<>();
    for (String arg : args) {
      shown.add(arg.isEmpty() || arg.chars().anyMatch(c -> c == ' ' || c == '"' || c == '\'')
          ? "\"" + arg.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : arg);
    }
    return String.join(" ", shown);
  }

  static String stages(AppModel m) {
    StringBuilder html = new StringBuilder("<table id=\"stages-table\"><tr><th>stage</th>"
        + "<th>name</th><th>plan</th><th>tasks</th><th>done</th><th>failed</th><th>running</th>"
        + "<th>submitted</th><th>duration</th><th>task time mean / max</th>"
        + "<th>shuffle written</th><th>shuffle read</th><th>spills</th><th>spilled</th>"
        + "<th>fetched to disk</th><th>peak heap</th></tr>");
    for (AppModel.Stage s : m.stages()) {
      int ended = s.done + s.failed;
      html.append("<tr><td class=\"n\">").append(s.id).append("</td><td>")
          .append(Html.escape(s.name)).append("</td><td>").append(Html.escape(s.plan))
          .append("</td>").append(num(s.tasks)).append(num(s.done))
          .append("<td class=\"n").append(s.failed > 0 ? " failed" : "").append("\">")
          .append(s.failed).append("</td>").append(num(s.running)).append("<td>")
          .append(time(s.submittedMillis)).append("</td><td class=\"n\">")
          .append(s.state.equals("completed") ? seconds(s.completedMillis - s.submittedMillis)
              : s.state).append("</td><td class=\"n\">")
          .append(ended == 0 ? "" : seconds(s.taskMillisTotal / ended) + " / "
              + seconds(s.taskMillisMax)).append("</td><td class=\"n\">")
          .append(bytes(s.shuffleWrittenBytes)).append("</td><td class=\"n\">")
          .append(bytes(s.shuffleReadBytes)).append("</td>").append(num(s.spills))
          .append("<td class=\"n\">").append(bytes(s.spilledBytes))
          .append("</td><td class=\"n\">").append(bytes(s.fetchedToDiskBytes))
          .append("</td><td class=\"n\">").append(s.peakHeapBytes == 0 ? ""
              : bytes(s.peakHeapBytes)).append("</td></tr>");
    }
    return html.append("</table>").toString();
  }

  /**
   * The allocation page; its decision and batch tables show the newest {@code maxRows} rows
   * (the history report shows all).
   */
  static String allocation(AppModel m, int maxRows) {
    long t0 = m.startMillis();
    List<AppModel.Sample> samples = m.samples();
    StringBuilder html = new StringBuilder("<h2>Executors</h2>");
    html.append(new SvgChart("executors-chart", "executors", t0)
        .add("target", "#d62728", true, points(samples, t0, s -> s.target()))
        .add("running", "#1f77b4", false, points(samples, t0, s -> s.running()))
        .add("starting", "#2ca02c", false, points(samples, t0, s -> s.starting()))
        .add("pending-to-remove", "#9467bd", false, points(samples, t0, s -> s.pendingRemoval()))
        .render());
    html.append("<h2>Tasks</h2>").append(new SvgChart("tasks-chart", "tasks", t0)
        .add("pending", "#ff7f0e", false, points(samples, t0, s -> s.pendingTasks()))
        .add("running", "#1f77b4", false, points(samples, t0, s -> s.runningTasks()))
        .render());
    List<AppModel.Batch> batches = m.batches();
    if (!batches.isEmpty()) {
      List<double[]> processing = new ArrayList<>();
      List<double[]> delay = new ArrayList<>();
      List<double[]> interval = new ArrayList<>();
      for (AppModel.Batch b : batches) {
        double x = (b.completedMillis() - t0) / 1000.0;
        processing.add(new double[] {x, b.processingMillis() / 1000.0});
        delay.add(new double[] {x, b.schedulingDelayMillis() / 1000.0});
        interval.add(new double[] {x, m.batchIntervalMillis() / 1000.0});
      }
      html.append("<h2>Batches</h2>").append(new SvgChart("batches-chart", "seconds", t0)
          .add("processing time", "#1f77b4", false, processing)
          .add("batch interval", "#d62728", true, interval)
          .add("scheduling delay", "#ff7f0e", false, delay).render());
    }
    html.append("<h2>Decisions</h2><table id=\"decisions-table\"><tr><th>time</th>"
        + "<th>decision</th><th>reason</th></tr>");
    List<AppModel.Decision> decisions = m.decisions();
    html.append(earlier(decisions.size(), maxRows, "decisions", "allocation"));
    for (AppModel.Decision d : newest(decisions, maxRows)) {
      html.append("<tr><td>").append(time(d.timeMillis())).append("</td><td>")
          .append(Html.escape(d.what())).append("</td><td>").append(Html.escape(d.reason()))
          .append("</td></tr>");
    }
    html.append("</table>");
    if (!batches.isEmpty()) {
      html.append("<h2>Batch timeline</h2><table id=\"batches-table\"><tr><th>batch</th>"
          + "<th>records</th><th>processing</th><th>scheduling delay</th><th>executors</th>"
          + "<th>target</th></tr>");
      html.append(earlier(batches.size(), maxRows, "batches", "batches"));
      for (AppModel.Batch b : newest(batches, maxRows)) {
        html.append("<tr class=\"").append(b.delayed() ? "delayed" : "").append("\"><td>")
            .append(time(b.batchTime())).append("</td>").append(num(b.records()))
            .append("<td class=\"n\">").append(b.processingMillis()).append(" ms</td>")
            .append("<td class=\"n\">").append(b.schedulingDelayMillis()).append(" ms</td>")
            .append(num(b.executors())).append(num(b.target())).append("</tr>");
      }
      html.append("</table>");
    }
    return html.toString();
  }

  /** Rows a live page's table shows at most (newest last); all are in the JSON API. */
  static final int PAGE_ROWS = 500;

  private static <T> List<T> newest(List<T> rows, int maxRows) {
    return rows.size() <= maxRows ? rows : rows.subList(rows.size() - maxRows, rows.size());
  }

  /** A table row saying how many older rows are left out, and where they are; or nothing. */
  private static String earlier(int rows, int maxRows, String what, String api) {
    return rows <= maxRows ? "" : "<tr class=\"earlier\"><td colspan=\"6\">" + (rows - maxRows)
        + " earlier " + what + " not shown: /api/v1/" + api + " or bin/tide history has them all"
        + "</td></tr>";
  }

  private static List<double[]> points(List<AppModel.Sample> samples, long t0,
      java.util.function.ToIntFunction<AppModel.Sample> value) {
    List<double[]> points = new ArrayList<>(samples.size());
    for (AppModel.Sample s : samples) {
      points.add(new double[] {(s.timeMillis() - t0) / 1000.0, value.applyAsInt(s)});
    }
    return points;
  }

  private static void row(StringBuilder html, String key, String value) {
    html.append("<tr><th>").append(Html.escape(key)).append("</th><td>")
        .append(Html.escape(value)).append("</td></tr>");
  }

  static String num(long n) {
    return "<td class=\"n\">" + n + "</td>";
  }

  static String time(long millis) {
    return millis < 0 ? "" : TIME.format(Instant.ofEpochMilli(millis));
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
