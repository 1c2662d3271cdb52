package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppSecret;
import dev.tide.driver.job.JobArgs;
import dev.tide.shuffle.ShuffleServiceMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataInputByteBuffer;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.URL;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Test;

/** The command lines, CLASSPATH and launch contexts the client and the AM build. */
class ContainerCommandsTest {
  private static final String SEP = ApplicationConstants.CLASS_PATH_SEPARATOR;

  @Test
  void classpathWithStagedJar() {
    Configuration conf = new Configuration(false);
    conf.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, "/etc/hadoop, /opt/hadoop/*");
    assertEquals("{{PWD}}/tide-app.jar" + SEP + "{{PWD}}" + SEP + "/etc/hadoop" + SEP
        + "/opt/hadoop/*", ContainerCommands.classpath(conf));
    assertTrue(ContainerCommands.stagesJar(conf));
  }

  @Test
  void classpathDefaultsToYarnsCrossPlatformClasspath() {
    String classpath = ContainerCommands.classpath(new Configuration(false));
    String expected = "{{PWD}}/tide-app.jar" + SEP + "{{PWD}}" + SEP + String.join(SEP,
        YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH);
    assertEquals(expected, classpath);
  }

  @Test
  void fixedContainerClasspathIsUsedVerbatim() {
    Configuration conf = new Configuration(false);
    conf.set("tide.yarn.container.classpath", "/conf:/classes:/lib/x.jar");
    assertEquals("/conf:/classes:/lib/x.jar", ContainerCommands.classpath(conf));
    assertFalse(ContainerCommands.stagesJar(conf));
  }

  @Test
  void environmentHasJavaHomeOnlyWhenSet() {
    Configuration conf = new Configuration(false);
    conf.set("tide.yarn.container.classpath", "/classes");
    assertEquals(java.util.Map.of("CLASSPATH", "/classes"),
        ContainerCommands.environment(conf, ContainerCommands.AM_ENV_PREFIX));
    conf.set("tide.yarn.container.javaHome", "/usr/lib/jvm/java-17");
    assertEquals(java.util.Map.of("CLASSPATH", "/classes", "JAVA_HOME", "/usr/lib/jvm/java-17"),
        ContainerCommands.environment(conf, ContainerCommands.AM_ENV_PREFIX));
  }

  @Test
  void extraEnvironmentForTheAmAndForExecutors() {
    Configuration conf = new Configuration(false);
    conf.set("tide.yarn.container.classpath", "/classes");
    conf.set("tide.am.env.TZ", "UTC");
    conf.set("tide.executor.env.LANG", "C.UTF-8");
    conf.set("tide.executor.env.CLASSPATH", "/mine"); // Tide's classpath wins
    assertEquals(java.util.Map.of("CLASSPATH", "/classes", "TZ", "UTC"),
        ContainerCommands.environment(conf, ContainerCommands.AM_ENV_PREFIX));
    assertEquals(java.util.Map.of("CLASSPATH", "/classes", "LANG", "C.UTF-8"),
        new ExecutorLaunchContexts(conf, "application_1_0001", "amhost", 40000,
            AppSecret.generate(), Map.of()).create("1").getEnvironment());
  }

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

  @Test
  void executorLaunchContext() throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("tide.executor.memory", "300m");
    conf.set("tide.executor.cores", "2");
    conf.set("tide.executor.javaOpts", "-XX:TieredStopAtLevel=1");
    conf.set("tide.executor.registrationTimeout", "45s");
    conf.set(YarnConfiguration.YARN_APPLICATION_CLASSPATH, "/etc/hadoop");
    byte[] secret = AppSecret.generate();
    LocalResource jar = LocalResource.newInstance(URL.newInstance("hdfs", "nn", 8020,
        "/s/app/tide-app.jar"), LocalResourceType.FILE, LocalResourceVisibility.APPLICATION,
        1234, 5678);
    ExecutorLaunchContexts contexts = new ExecutorLaunchContexts(conf,
        "application_1_0001", "amhost", 40000, secret, Map.of("tide-app.jar", jar));

    ContainerLaunchContext context = contexts.create("7");

    assertEquals(List.of("{{JAVA_HOME}}/bin/java -Xmx300m -XX:TieredStopAtLevel=1"
        + " dev.tide.executor.ExecutorMain --driver amhost:40000 --executor-id 7"
        + " --app-id application_1_0001 --cores 2 --registration-timeout-ms 45000"
        + " 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr"),
        context.getCommands());
    assertEquals("{{PWD}}/tide-app.jar" + SEP + "{{PWD}}" + SEP + "/etc/hadoop",
        context.getEnvironment().get("CLASSPATH"));
    assertEquals(jar, context.getLocalResources().get("tide-app.jar"));
    ByteBuffer serviceData =
        context.getServiceData().get(ShuffleServiceMetadata.SERVICE_NAME);
    byte[] shuffleSecret = new byte[serviceData.remaining()];
    serviceData.duplicate().get(shuffleSecret);
    assertEquals(ByteBuffer.wrap(secret), ByteBuffer.wrap(shuffleSecret));

    Credentials credentials = new Credentials();
    DataInputByteBuffer in = new DataInputByteBuffer();
    in.reset(context.getTokens().duplicate());
    credentials.readTokenStorageStream(in);
    assertEquals(0, credentials.numberOfTokens(), "only the secret, never the AMRM token");
    assertEquals(1, credentials.numberOfSecretKeys());
    assertEquals(ByteBuffer.wrap(secret),
        ByteBuffer.wrap(credentials.getSecretKey(AppSecret.CREDENTIALS_ALIAS)));
  }

  @Test
  void executorLaunchContextWithFixedClasspathStagesNothing() {
    Configuration conf = new Configuration(false);
    conf.set("tide.yarn.container.classpath", "/conf:/classes");
    ContainerLaunchContext context = new ExecutorLaunchContexts(conf, "application_1_0001",
        "amhost", 40000, AppSecret.generate(), Map.of()).create("1");
    assertEquals("/conf:/classes", context.getEnvironment().get("CLASSPATH"));
    assertTrue(context.getLocalResources().isEmpty());
  }
}
