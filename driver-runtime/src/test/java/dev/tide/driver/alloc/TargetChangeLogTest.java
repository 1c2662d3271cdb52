package dev.tide.driver.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One INFO line per change of the target, none when nothing changes (via the log4j binding). */
class TargetChangeLogTest {
  private final List<String> lines = new ArrayList<>();
  private final Logger logger = Logger.getLogger(BatchAllocationPolicy.class);
  private final AppenderSkeleton capture = new AppenderSkeleton() {
    @Override
    protected void append(LoggingEvent event) {
      lines.add(event.getLevel() + " " + event.getRenderedMessage());
    }

    @Override
    public void close() {}

    @Override
    public boolean requiresLayout() {
      return false;
    }
  };
  private Level previousLevel;

  @BeforeEach
  void attach() {
    previousLevel = logger.getLevel();
    logger.setLevel(Level.INFO);
    logger.addAppender(capture);
  }

  @AfterEach
  void detach() {
    logger.removeAppender(capture);
    logger.setLevel(previousLevel);
  }

  @Test
  void oneLinePerChangeOfTheTarget() {
    BatchAllocationPolicy p = new BatchAllocationPolicy(
        AllocationSettings.classic(0, 100, 1), new ExponentialRampUp());
    long now = 0;
    for (int tick = 0; tick <= 30; tick++) {
      p.evaluate(now, 37, 4, 4, List.of());
      now += 100;
    }
    for (int tick = 0; tick < 30; tick++) {
      p.evaluate(now, 0, 4, 4, List.of());
      now += 100;
    }
    assertEquals(List.of(
        "INFO target 0 -> 5 (backlog 1.0 s, 37 pending, 4 running tasks, step 1)",
        "INFO target 5 -> 7 (backlog 2.0 s, 37 pending, 4 running tasks, step 2)",
        "INFO target 7 -> 11 (backlog 3.0 s, 37 pending, 4 running tasks, step 4)",
        "INFO target 11 -> 4 (no backlog, 0 pending, 4 running tasks, tasks need fewer)"), lines);
  }
}
