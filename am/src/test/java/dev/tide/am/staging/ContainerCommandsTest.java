package dev.tide.am.staging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.am.yarn.ExecutorLaunchContexts;
import dev.tide.app.AppSecret;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.Test;

/** The CLASSPATH and environment every Tide container (the AM and the executors) gets. */
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
}
