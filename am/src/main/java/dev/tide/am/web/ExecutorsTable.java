package dev.tide.am.web;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The Executors page's content: a summary by state (as the Spark UI's executors summary: how
 * many, their running, done and failed tasks, shuffle bytes written), then the executors' rows,
 * sorted by a column and one page of {@link #PAGE_ROWS} at a time, chosen by the query
 * parameters {@code sort} (a column's key), {@code order} ({@code asc}, {@code desc}) and
 * {@code page} (from 1) that its header and page links set. Server-side, so the page needs no
 * script and its links are relative (they work behind the ResourceManager's proxy). The history
 * report shows every row, in executor order.
 */
final class ExecutorsTable {
  /** Rows on one live page. */
  static final int PAGE_ROWS = 100;

  /** A sortable column: its query key, header, and order. */
  private record Column(String key, String title, Comparator<AppModel.Executor> order) {}

  private static final Comparator<AppModel.Executor> BY_ID = Comparator.comparingLong(
      (AppModel.Executor x) -> numeric(x.id)).thenComparing(x -> x.id);
  private static final List<Column> COLUMNS = List.of(
      new Column("id", "executor", BY_ID),
      text("host", "host", x -> x.host),
      text("container", "container", x -> x.container),
      text("state", "state", x -> x.state),
      number("started", "started", x -> x.launchedMillis),
      number("ended", "ended", x -> x.endMillis),
      number("done", "tasks done", x -> x.tasksDone),
      number("failed", "failed", x -> x.tasksFailed),
      number("shuffle", "shuffle written", x -> x.shuffleWrittenBytes));
  private static final List<String> STATES =
      List.of("launched", "running", "pending-to-remove", "ended", "preempted", "failed");

  private ExecutorsTable() {}

  private static Column text(String key, String title, Function<AppModel.Executor, String> f) {
    return new Column(key, title, Comparator.comparing(f).thenComparing(BY_ID));
  }

  private static Column number(String key, String title,
      ToLongFunction<AppModel.Executor> f) {
    return new Column(key, title, Comparator.comparingLong(f).thenComparing(BY_ID));
  }

  private static long numeric(String id) {
    try {
      return Long.parseLong(id);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * The summary and the table.
   *
   * @param query the page's query parameters; empty for the history report (every row)
   * @param paged whether to show one page (the live page) or every row (the report)
   */
  static String render(AppModel m, Map<String, String> query, boolean paged) {
    List<AppModel.Executor> executors = new ArrayList<>(m.executors());
    StringBuilder html = new StringBuilder(summary(executors));
    Column sort = COLUMNS.stream().filter(c -> c.key().equals(query.get("sort"))).findFirst()
        .orElse(COLUMNS.get(0));
    boolean descending = "desc".equals(query.get("order"));
    Comparator<AppModel.Executor> order = descending ? sort.order().reversed() : sort.order();
    executors.sort(order);
    int pages = paged ? Math.max(1, (executors.size() + PAGE_ROWS - 1) / PAGE_ROWS) : 1;
    int page = Math.min(pages, Math.max(1, parse(query.get("page"))));
    List<AppModel.Executor> shown = paged ? executors.subList((page - 1) * PAGE_ROWS,
        Math.min(executors.size(), page * PAGE_ROWS)) : executors;
    if (pages > 1) {
      html.append(pageLinks(sort.key(), descending, page, pages, executors.size()));
    }
    html.append("<table id=\"executors-table\"><tr>");
    for (Column c : COLUMNS) {
      if (paged) {
        boolean next = c == sort && !descending;
        html.append("<th><a href=\"").append(Html.escape(link(c.key(), next, 1))).append("\">")
            .append(c.title()).append(c == sort ? (descending ? " &#9660;" : " &#9650;") : "")
            .append("</a></th>");
      } else {
        html.append("<th>").append(c.title()).append("</th>");
      }
    }
    html.append("<th>why it ended</th><th>exit status</th><th>diagnosis</th><th>logs</th></tr>");
    for (AppModel.Executor x : shown) {
      row(html, x, m.user());
    }
    return html.append("</table>").toString();
  }

  private static int parse(String page) {
    try {
      return page == null ? 1 : Integer.parseInt(page.trim());
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  private static String link(String sort, boolean descending, int page) {
    return "executors?sort=" + sort + "&order=" + (descending ? "desc" : "asc") + "&page="
        + page;
  }

  private static String pageLinks(String sort, boolean descending, int page, int pages,
      int rows) {
    StringBuilder nav = new StringBuilder("<p class=\"pages\">executors ")
        .append((page - 1) * PAGE_ROWS + 1).append('-')
        .append(Math.min(rows, page * PAGE_ROWS)).append(" of ").append(rows).append(": page");
    for (int p = 1; p <= pages; p++) {
      nav.append(' ');
      if (p == page) {
        nav.append("<b>").append(p).append("</b>");
      } else {
        nav.append("<a href=\"").append(Html.escape(link(sort, descending, p))).append("\">")
            .append(p).append("</a>");
      }
    }
    return nav.append("</p>").toString();
  }

  private static void row(StringBuilder html, AppModel.Executor x, String user) {
    String logs = x.container.isEmpty() || x.nodeHttp.isEmpty() || user.isEmpty() ? ""
        : "<a class=\"logs\" href=\"" + Html.escape("http://" + x.nodeHttp
            + "/node/containerlogs/" + x.container + "/" + user) + "\">logs</a>";
    html.append("<tr class=\"executor\" data-executor=\"").append(Html.escape(x.id))
        .append("\"><td>").append(Html.escape(x.id)).append("</td><td>")
        .append(Html.escape(x.host)).append("</td><td>").append(Html.escape(x.container))
        .append("</td><td class=\"").append(x.state.equals("failed") ? "failed" : "")
        .append("\">").append(x.state).append("</td><td>").append(UiPages.time(x.launchedMillis))
        .append("</td><td>").append(UiPages.time(x.endMillis)).append("</td>")
        .append(UiPages.num(x.tasksDone)).append(UiPages.num(x.tasksFailed))
        .append("<td class=\"n\">").append(UiPages.bytes(x.shuffleWrittenBytes))
        .append("</td><td>").append(Html.escape(x.removalReason)).append("</td><td>")
        .append(Html.escape(x.exitStatus)).append("</td><td>").append(Html.escape(x.diagnosis))
        .append("</td><td>").append(logs).append("</td></tr>");
  }

  /** Per state (those that occur) and in total: executors, their tasks, shuffle written. */
  private static String summary(List<AppModel.Executor> executors) {
    StringBuilder html = new StringBuilder("<table id=\"executors-summary\"><tr><th></th>"
        + "<th>executors</th><th>tasks running</th><th>tasks done</th><th>tasks failed</th>"
        + "<th>shuffle written</th></tr>");
    for (String state : STATES) {
      List<AppModel.Executor> in = executors.stream().filter(x -> x.state.equals(state))
          .toList();
      if (!in.isEmpty()) {
        summaryRow(html, state, in);
      }
    }
    summaryRow(html, "total", executors);
    return html.append("</table>").toString();
  }

  private static void summaryRow(StringBuilder html, String name,
      List<AppModel.Executor> executors) {
    long running = 0;
    long done = 0;
    long failed = 0;
    long shuffle = 0;
    for (AppModel.Executor x : executors) {
      running += x.tasksRunning;
      done += x.tasksDone;
      failed += x.tasksFailed;
      shuffle += x.shuffleWrittenBytes;
    }
    html.append("<tr><td>").append(name).append("</td>").append(UiPages.num(executors.size()))
        .append(UiPages.num(running)).append(UiPages.num(done)).append(UiPages.num(failed))
        .append("<td class=\"n\">").append(UiPages.bytes(shuffle)).append("</td></tr>");
  }
}
