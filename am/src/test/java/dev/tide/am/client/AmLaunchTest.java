package dev.tide.am.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.am.AmOptions;
import dev.tide.driver.job.JobArgs;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.Resource;
import org.junit.jupiter.api.Test;

/** The AM's command line, container size and job configuration the client builds. */
class AmLaunchTest {
  @Test
  void amCommandAndResource() {
    Configuration conf = new Configuration(false);
    conf.set("tide.am.memory", "256m");
    conf.set("tide.am.memoryOverhead", "128m");
    conf.set("tide.am.cores", "2");
    conf.set("tide.am.javaOpts", " -XX:+UseSerialGC -Dx=y ");
    assertEquals("{{JAVA_HOME}}/bin/java -Xmx256m -XX:+UseSerialGC -Dx=y"
        + " dev.tide.am.ApplicationMaster 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr",
        TideClient.amCommand(conf));
    assertEquals(Resource.newInstance(384, 2), TideClient.amResource(conf));
  }

  @Test
  void amCommandWithoutJavaOpts() {
    assertEquals("{{JAVA_HOME}}/bin/java -Xmx512m dev.tide.am.ApplicationMaster"
        + " 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr",
        TideClient.amCommand(new Configuration(false)));
  }

  @Test
  void jobConfCarriesJobArgsAndStagedJar() {
    Configuration conf = new Configuration(false);
    conf.set("tide.executor.cores", "3");
    Configuration jobConf = TideClient.jobConf(conf, "wordcount",
        List.of("/in,put", "/out"), Optional.of(new Path("hdfs://nn/s/app/tide-app.jar")));
    assertEquals("wordcount", jobConf.get("tide.job"));
    assertEquals(List.of("/in,put", "/out"), JobArgs.decode(jobConf.get("tide.job.args")));
    assertEquals("3", jobConf.get("tide.executor.cores"));
    assertEquals("hdfs://nn/s/app/tide-app.jar", jobConf.get(AmOptions.STAGED_JAR_KEY));
    assertEquals(null, conf.get("tide.job"), "the client's own configuration is not changed");
  }
}
