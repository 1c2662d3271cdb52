package dev.tide.am.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The web UI's JSON API, {@code /api/v1/<resource>} (docs/web-ui.md): {@code app},
 * {@code stages}, {@code executors}, {@code allocation} (samples and decisions) and
 * {@code batches}; the same data as the pages.
 */
public final class JsonApi {
  public static final List<String> RESOURCES =
      List.of("app", "stages", "executors", "allocation", "batches");
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonApi() {}

  /** The resource's JSON, or empty for an unknown resource. */
  public static Optional<String> render(String resource, AppModel m) {
    Object body = switch (resource) {
      case "app" -> app(m);
      case "stages" -> m.stages();
      case "executors" -> m.executors();
      case "allocation" -> allocation(m);
      case "batches" -> m.batches();
      default -> null;
    };
    if (body == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(
          body instanceof List<?> list ? rows(list) : body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + resource + " as JSON", e);
    }
  }

  private static Map<String, Object> app(AppModel m) {
    Map<String, Object> app = new LinkedHashMap<>();
    app.put("id", m.appId());
    app.put("job", m.job());
    app.put("user", m.user());
    app.put("state", m.result());
    app.put("startMillis", m.startMillis());
    app.put("endMillis", m.endMillis());
    app.put("diagnostics", m.diagnostics());
    app.put("targetExecutors", m.target());
    app.put("resources", RESOURCES);
    return app;
  }

  private static Map<String, Object> allocation(AppModel m) {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("samples", rows(m.samples()));
    a.put("decisions", rows(m.decisions()));
    return a;
  }

  /** Records and the model's row classes as maps of their fields. */
  private static List<Object> rows(List<?> items) {
    List<Object> out = new ArrayList<>(items.size());
    for (Object item : items) {
      out.add(JSON.convertValue(item instanceof Record ? item : fields(item), Object.class));
    }
    return out;
  }

  private static Map<String, Object> fields(Object row) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (java.lang.reflect.Field f : row.getClass().getFields()) {
      try {
        map.put(f.getName(), f.get(row));
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
    return map;
  }
}
