package dev.tide.shuffle.yarn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.ShuffleLayout;
import dev.tide.shuffle.ShuffleServiceMetadata;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.testing.MapOutputs;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ApplicationClassLoader;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded NodeManager jar ({@code -nm.jar}) loaded the way a NodeManager loads it when
 * {@code yarn.nodemanager.aux-services.tide_shuffle.classpath} is set: an
 * {@link ApplicationClassLoader} over the jar whose parent is the NodeManager's loader, with the
 * system classes from {@code ...tide_shuffle.system-classes} (unset here, so Hadoop's defaults),
 * the instance made with {@link ReflectionUtils#newInstance} and every call made with that loader
 * as the context class loader (AuxiliaryServiceWithCustomClassLoader does the same). The parent
 * here also holds the unshaded classes and Netty, so serving a fetch proves the jar is
 * self-contained and takes precedence.
 *
 * <p>Runs in the {@code integration-test} phase (a second surefire execution, after
 * {@code package} built the jar); the jar's path arrives as system property {@code tide.nm.jar}.
 */
class NodeManagerClassLoaderIT {
  private static final String SERVICE_CLASS = "dev.tide.shuffle.yarn.TideShuffleService";
  private static final String USER = "dora";
  private static final byte[] SECRET = "isolated-secret".getBytes(StandardCharsets.UTF_8);

  @TempDir Path localDir;
  @TempDir Path recoveryDir;

  @Test
  void shadedJarServesAFetchFromTheNodeManagersIsolatedClassLoader() throws Exception {
    String jar = System.getProperty("tide.nm.jar");
    assertTrue(jar != null && Files.isRegularFile(Path.of(jar)),
        "tide.nm.jar must name the shaded jar built in package: " + jar);

    Configuration conf = new Configuration(false);
    conf.setInt(ShuffleServiceOptions.PORT.key(), 0);
    conf.set(ShuffleServiceOptions.NM_LOCAL_DIRS, localDir.toString());
    String[] systemClasses = conf.getTrimmedStrings(
        "yarn.nodemanager.aux-services." + ShuffleServiceMetadata.SERVICE_NAME + ".system-classes");
    ClassLoader nodeManagerLoader = AuxiliaryService.class.getClassLoader();
    ApplicationClassLoader isolated = new ApplicationClassLoader(jar, nodeManagerLoader,
        Arrays.asList(systemClasses));

    Class<?> serviceClass = Class.forName(SERVICE_CLASS, true, isolated);
    assertSame(isolated, serviceClass.getClassLoader());
    assertNotSame(TideShuffleService.class, serviceClass);
    // Netty inside the jar is the relocated copy, from the jar; Hadoop is shared.
    assertSame(isolated,
        isolated.loadClass("dev.tide.shaded.io.netty.channel.Channel").getClassLoader());
    // So are Tide's typed settings (module conf-options), which the NodeManager does not have.
    assertSame(isolated, isolated.loadClass("dev.tide.conf.ConfigOption").getClassLoader());
    assertSame(AuxiliaryService.class, isolated.loadClass(AuxiliaryService.class.getName()));

    AuxiliaryService service = ReflectionUtils.newInstance(
        serviceClass.asSubclass(AuxiliaryService.class), conf);
    service.setRecoveryPath(new org.apache.hadoop.fs.Path(recoveryDir.toUri()));
    try {
      withLoader(isolated, () -> {
        service.init(conf);
        service.start();
        return null;
      });
      int port = ShuffleServiceMetadata.decodePort(withLoader(isolated, service::getMetaData));
      assertNotEquals(0, port);

      ApplicationId appId = new TestingApplicationId(1700000000000L, 77);
      withLoader(isolated, () -> {
        service.initializeApplication(
            new ApplicationInitializationContext(USER, appId, ByteBuffer.wrap(SECRET)));
        return null;
      });
      String app = appId.toString();
      int[] lengths = {17, 4096, 3};
      MapOutputs.write(List.of(ShuffleLayout.appLocalDir(localDir, USER, app)), 2, 5, lengths);
      try (ShuffleClient client = new ShuffleClient(app, SECRET)) {
        List<byte[]> data = client.fetch("127.0.0.1", port, List.of(new BlockId(2, 5, 0, 3)));
        assertArrayEquals(MapOutputs.expected(2, 5, lengths, 0, 3), data.get(0));
      }
      try (ShuffleClient wrong = new ShuffleClient(app, "not-the-secret".getBytes())) {
        assertEquals(ShuffleFetchException.Reason.AUTH, assertThrows(ShuffleFetchException.class,
            () -> wrong.fetch("127.0.0.1", port, List.of(BlockId.of(2, 5, 0)))).reason());
      }
    } finally {
      withLoader(isolated, () -> {
        service.stop();
        return null;
      });
      isolated.close();
    }
  }

  private static <T> T withLoader(ClassLoader loader, Callable<T> call) throws Exception {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      return call.call();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }
}
