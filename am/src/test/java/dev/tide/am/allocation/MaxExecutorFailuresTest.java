package dev.tide.am.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** tide.executor.maxFailures and its default, as Spark's (ExecutorFailureTracker). */
class MaxExecutorFailuresTest {
  private final Configuration conf = new Configuration(false);

  @Test
  void anExplicitSettingIsTheLimit() {
    conf.set("tide.executor.maxFailures", "6");
    conf.set("tide.dynamicAllocation.maxExecutors", "100");
    MaxExecutorFailures limit = MaxExecutorFailures.fromConf(conf);
    assertEquals(6, limit.limit(500));
    assertEquals("tide.executor.maxFailures = 6", limit.describe(500));
  }

  @Test
  void byDefaultTwiceMaxExecutorsAtLeast3() {
    conf.set("tide.dynamicAllocation.maxExecutors", "40");
    MaxExecutorFailures limit = MaxExecutorFailures.fromConf(conf);
    assertEquals(80, limit.limit(1));
    assertEquals("tide.executor.maxFailures = 80 (by default 2 x"
        + " tide.dynamicAllocation.maxExecutors = 40, at least 3)", limit.describe(1));
    conf.set("tide.dynamicAllocation.maxExecutors", "1");
    assertEquals(3, MaxExecutorFailures.fromConf(conf).limit(1));
    conf.set("tide.dynamicAllocation.maxExecutors", Integer.toString(Integer.MAX_VALUE - 1));
    assertEquals(Integer.MAX_VALUE, MaxExecutorFailures.fromConf(conf).limit(1), "no overflow");
  }

  @Test
  void withMaxExecutorsUnboundedTheLimitFollowsTheMostExecutorsAtOnce() {
    MaxExecutorFailures limit = MaxExecutorFailures.fromConf(conf);
    assertEquals(MaxExecutorFailures.followingExecutors(), limit, "all defaults");
    assertEquals(3, limit.limit(0));
    assertEquals(3, limit.limit(1));
    assertEquals(200, limit.limit(100));
    assertEquals("tide.executor.maxFailures = 200 (by default twice the most executors the"
        + " application had at once, 100, at least 3)", limit.describe(100));
  }

  @Test
  void withoutDynamicAllocationTwiceTheFixedCount() {
    conf.set("tide.dynamicAllocation.enabled", "false");
    conf.set("tide.dynamicAllocation.initialExecutors", "8");
    assertEquals(16, MaxExecutorFailures.fromConf(conf).limit(0));
    conf.unset("tide.dynamicAllocation.initialExecutors");
    conf.set("tide.dynamicAllocation.minExecutors", "5");
    assertEquals(10, MaxExecutorFailures.fromConf(conf).limit(0),
        "initialExecutors -1: minExecutors");
  }

  @Test
  void aStreamingJobSizedByItsPolicyUsesItsMaxExecutors() {
    conf.set("tide.streaming.dynamicAllocation.enabled", "true");
    assertEquals(100, MaxExecutorFailures.fromConf(conf).limit(0), "2 x the default 50");
  }
}
