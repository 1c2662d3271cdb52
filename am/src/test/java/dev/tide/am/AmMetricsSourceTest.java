package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.am.web.AppModel;
import dev.tide.driver.events.EventLine;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.MetricsRecord;
import org.apache.hadoop.metrics2.impl.MetricsCollectorImpl;
import org.junit.jupiter.api.Test;

/** What the AM's metrics2 record says after a few task ends (as a metrics sink would see it). */
class AmMetricsSourceTest {
  private final AppModel model = new AppModel();

  private void taskEnd(int task, String result, Object... metrics) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("task", task);
    fields.put("stage", 0);
    fields.put("executor", "1");
    fields.put("result", result);
    for (int i = 0; i < metrics.length; i += 2) {
      fields.put((String) metrics[i], metrics[i + 1]);
    }
    model.apply(EventLine.parse(EventLine.json(task, "taskEnd", fields)));
  }

  @Test
  void spillsAndBytesWrittenToLocalDiskAreCounted() {
    taskEnd(1, "SUCCEEDED", "spills", 31, "spilledBytes", 543_470_862L);
    taskEnd(2, "SUCCEEDED", "fetchedToDiskBytes", 881_000_000L);
    taskEnd(3, "FAILED", "spills", 2, "spilledBytes", 1_000);
    MetricsCollectorImpl collector = new MetricsCollectorImpl();
    new AmMetricsSource(model, () -> {
      throw new IllegalStateException("driver not started");
    }).getMetrics(collector, true);
    MetricsRecord record = collector.getRecords().get(0);
    assertEquals(AmMetricsSource.RECORD, record.name());
    Map<String, Number> values = new HashMap<>();
    for (AbstractMetric metric : record.metrics()) {
      values.put(metric.name(), metric.value());
    }
    assertEquals(33L, values.get("Spills").longValue());
    assertEquals(543_471_862L, values.get("SpilledBytes").longValue());
    assertEquals(881_000_000L, values.get("FetchedToDiskBytes").longValue());
  }
}
