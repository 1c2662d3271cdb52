package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Resource;
import org.junit.jupiter.api.Test;

/** The AM's check of its own and its executors' containers against the RM's largest one. */
class ContainerSizesTest {
  private static final Resource MAXIMUM = Resource.newInstance(4096, 4);

  @Test
  void sizesAreHeapPlusOverheadAndCores() {
    Configuration conf = conf("1g", "512m", 2, "768m", "256m", 1);
    assertEquals(Resource.newInstance(1536, 2), ContainerSizes.executor(conf));
    assertEquals(Resource.newInstance(1024, 1), ContainerSizes.am(conf));
  }

  @Test
  void containersUpToTheMaximumFit() {
    assertEquals(Optional.empty(),
        ContainerSizes.tooLarge(conf("3584m", "512m", 4, "3g", "1g", 4), MAXIMUM));
  }

  @Test
  void anExecutorAboveTheMaximumMemoryNamesBothSizesAndTheKeys() {
    assertEquals(Optional.of("the executor container <memory:4097, vCores:1> exceeds the largest"
        + " container the ResourceManager grants, <memory:4096, vCores:4>: lower"
        + " tide.executor.memory + tide.executor.memoryOverhead (3841 + 256 MiB) or raise"
        + " yarn.scheduler.maximum-allocation-mb (the ResourceManager caps it at the largest"
        + " NodeManager's yarn.nodemanager.resource.memory-mb)"),
        ContainerSizes.tooLarge(conf("3841m", "256m", 1, "512m", "256m", 1), MAXIMUM));
  }

  @Test
  void tooManyExecutorCoresNameTheCoreKeys() {
    assertEquals(Optional.of("the executor container <memory:768, vCores:5> exceeds the largest"
        + " container the ResourceManager grants, <memory:4096, vCores:4>: lower"
        + " tide.executor.cores (5) or raise yarn.scheduler.maximum-allocation-vcores (the"
        + " ResourceManager caps it at the largest NodeManager's"
        + " yarn.nodemanager.resource.cpu-vcores)"),
        ContainerSizes.tooLarge(conf("512m", "256m", 5, "512m", "256m", 1), MAXIMUM));
  }

  @Test
  void theAmItselfIsCheckedToo() {
    // The RM granted this AM's container, but its maximum can have dropped since (a smaller
    // largest NodeManager, a changed scheduler configuration): no next attempt could start.
    assertEquals(Optional.of("the ApplicationMaster container <memory:5120, vCores:6> exceeds"
        + " the largest container the ResourceManager grants, <memory:4096, vCores:4>: lower"
        + " tide.am.memory + tide.am.memoryOverhead (4096 + 1024 MiB) or raise"
        + " yarn.scheduler.maximum-allocation-mb (the ResourceManager caps it at the largest"
        + " NodeManager's yarn.nodemanager.resource.memory-mb); lower tide.am.cores (6) or raise"
        + " yarn.scheduler.maximum-allocation-vcores (the ResourceManager caps it at the largest"
        + " NodeManager's yarn.nodemanager.resource.cpu-vcores)"),
        ContainerSizes.tooLarge(conf("512m", "256m", 1, "4g", "1g", 6), MAXIMUM));
  }

  @Test
  void bothTooLargeAreBothNamed() {
    String why = ContainerSizes.tooLarge(conf("8g", "1g", 1, "8g", "1g", 1), MAXIMUM)
        .orElseThrow();
    assertEquals(2, why.split("; ").length, why);
    assertTrue(why.startsWith("the executor container <memory:9216, vCores:1>"), why);
    assertTrue(why.contains("; the ApplicationMaster container <memory:9216,"
        + " vCores:1>"), why);
  }

  private static Configuration conf(String executorMemory, String executorOverhead,
      int executorCores, String amMemory, String amOverhead, int amCores) {
    Configuration conf = new Configuration(false);
    conf.set("tide.executor.memory", executorMemory);
    conf.set("tide.executor.memoryOverhead", executorOverhead);
    conf.setInt("tide.executor.cores", executorCores);
    conf.set("tide.am.memory", amMemory);
    conf.set("tide.am.memoryOverhead", amOverhead);
    conf.setInt("tide.am.cores", amCores);
    return conf;
  }
}
