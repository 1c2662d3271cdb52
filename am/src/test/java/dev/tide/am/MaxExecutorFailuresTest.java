package dev.tide.am;

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
    assertEquals(6, MaxExecutorFailures.fromConf(conf));
    assertEquals(6, MaxExecutorFailures.limit(MaxExecutorFailures.fromConf(conf), 500));
  }

  @Test
  void byDefaultTwiceMaxExecutorsAtLeast3() {
    conf.set("tide.dynamicAllocation.maxExecutors", "40");
    assertEquals(80, MaxExecutorFailures.fromConf(conf));
    conf.set("tide.dynamicAllocation.maxExecutors", "1");
    assertEquals(3, MaxExecutorFailures.fromConf(conf));
    conf.set("tide.dynamicAllocation.maxExecutors", Integer.toString(Integer.MAX_VALUE - 1));
    assertEquals(Integer.MAX_VALUE, MaxExecutorFailures.fromConf(conf), "no overflow");
  }

  @Test
  void withMaxExecutorsUnboundedTheLimitFollowsTheMostExecutorsAtOnce() {
    assertEquals(MaxExecutorFailures.FOLLOWS_EXECUTORS, MaxExecutorFailures.fromConf(conf),
        "all defaults");
    int setting = MaxExecutorFailures.fromConf(conf);
    assertEquals(3, MaxExecutorFailures.limit(setting, 0));
    assertEquals(3, MaxExecutorFailures.limit(setting, 1));
    assertEquals(200, MaxExecutorFailures.limit(setting, 100));
  }

  @Test
  void withoutDynamicAllocationTwiceTheFixedCount() {
    conf.set("tide.dynamicAllocation.enabled", "false");
    conf.set("tide.dynamicAllocation.initialExecutors", "8");
    assertEquals(16, MaxExecutorFailures.fromConf(conf));
    conf.unset("tide.dynamicAllocation.initialExecutors");
    conf.set("tide.dynamicAllocation.minExecutors", "5");
    assertEquals(10, MaxExecutorFailures.fromConf(conf), "initialExecutors -1: minExecutors");
  }

  @Test
  void aStreamingJobSizedByItsPolicyUsesItsMaxExecutors() {
    conf.set("tide.streaming.dynamicAllocation.enabled", "true");
    assertEquals(100, MaxExecutorFailures.fromConf(conf), "2 x the default 50");
  }
}
