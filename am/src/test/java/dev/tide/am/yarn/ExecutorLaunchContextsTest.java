package dev.tide.am.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.app.AppSecret;
import dev.tide.shuffle.ShuffleServiceMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.DataInputByteBuffer;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Test;

/** The launch contexts the AM builds for executors. */
class ExecutorLaunchContextsTest {
  private static final String SEP = ApplicationConstants.CLASS_PATH_SEPARATOR;

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
