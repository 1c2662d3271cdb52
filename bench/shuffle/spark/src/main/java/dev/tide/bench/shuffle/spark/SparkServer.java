package dev.tide.bench.shuffle.spark;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import io.netty.util.Version;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.network.TransportContext;
import org.apache.spark.network.crypto.AuthServerBootstrap;
import org.apache.spark.network.server.OneForOneStreamManager;
import org.apache.spark.network.server.TransportServer;
import org.apache.spark.network.shuffle.ExecutorDiskUtils;
import org.apache.spark.network.shuffle.ExternalBlockHandler;
import org.apache.spark.network.shuffle.ExternalShuffleBlockResolver;
import org.apache.spark.network.shuffle.protocol.ExecutorShuffleInfo;
import org.apache.spark.network.util.IOMode;
import org.apache.spark.network.util.NettyUtils;
import org.apache.spark.network.util.TransportConf;

/**
 * Spark's external shuffle service (spark-network-shuffle 4.1.3 in module spark, 3.5.5 in module
 * spark35, which compiles this source unchanged): an {@link ExternalBlockHandler}
 * in a {@link TransportContext}, with authentication on ({@code spark.authenticate}: SASL
 * DIGEST-MD5, no encryption, the default when {@code spark.network.crypto.enabled} is off), all
 * other settings at their defaults. The executor is registered directly with the resolver (what
 * the RegisterExecutor RPC does) so the client needs no paths.
 * Data: {@code <dataDir>/blockmgr/<%02x>/shuffle_0_<map>_0.data|.index} placed as Spark's
 * DiskBlockManager does, index = R+1 big-endian long offsets. The layout is the same in 3.5 and
 * 4.1, so both servers use one data set (the driver gives spark35 the spark data directory).
 */
public final class SparkServer {
  static final String EXEC_ID = "0";
  static final int SUB_DIRS = 64;

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = LoadGenerator.args(argv);
    Path dataDir = Path.of(a.get("dataDir"));
    Workload w = Workload.forBlockSize(Integer.parseInt(a.get("block")), Integer.MAX_VALUE);
    String[] localDirs = {dataDir.resolve("blockmgr").toString()};
    DataSets.ensure(dataDir, w, dir -> {
      for (int m = 0; m < w.maps(); m++) {
        Path data = Path.of(ExecutorDiskUtils.getFilePath(localDirs, SUB_DIRS,
            "shuffle_0_" + m + "_0.data"));
        Path index = Path.of(ExecutorDiskUtils.getFilePath(localDirs, SUB_DIRS,
            "shuffle_0_" + m + "_0.index"));
        long[] lengths = w.writeMapData(data, m).lengths();
        writeIndex(index, lengths);
      }
    });

    TransportConf conf = SparkConfs.conf(SparkConfs.crypto(a));
    ExternalShuffleBlockResolver resolver = new ExternalShuffleBlockResolver(conf, (File) null);
    resolver.registerExecutor(DataSets.APP_ID, EXEC_ID,
        new ExecutorShuffleInfo(localDirs, SUB_DIRS, "sort"));
    ExternalBlockHandler handler = new ExternalBlockHandler(new OneForOneStreamManager(), resolver);
    TransportContext context = new TransportContext(conf, handler, true);
    TransportServer server = context.createServer("127.0.0.1", 0,
        List.of(new AuthServerBootstrap(conf, SparkConfs.SECRETS)));
    // The versions really loaded (module spark: 4.1.3, module spark35: 3.5.5) and the transport
    // spark.shuffle.io.mode resolves to (default NIO in 3.5; AUTO in 4.x, epoll on Linux).
    String channel = NettyUtils.getServerChannelClass(IOMode.valueOf(conf.ioMode()))
        .getSimpleName();
    System.out.println("READY " + server.getPort() + " spark="
        + TransportContext.class.getPackage().getImplementationVersion() + " netty="
        + Version.identify().get("netty-transport").artifactVersion() + " transport="
        + channel.replace("ServerSocketChannel", "").toLowerCase(java.util.Locale.ROOT)
        + " crypto=" + (conf.encryptionEnabled() ? "on cipher=" + conf.cipherTransformation()
        : "off"));
    System.out.flush();
    DataSets.awaitTermination();
  }

  private static void writeIndex(Path index, long[] lengths) throws IOException {
    Files.createDirectories(index.getParent());
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(index))) {
      long offset = 0;
      out.writeLong(offset);
      for (long len : lengths) {
        offset += len;
        out.writeLong(offset);
      }
    }
  }
}
