package dev.tide.bench.shuffle.hadoop;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.DiskChecker.DiskErrorException;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;

/**
 * Hadoop's MapReduce ShuffleHandler (hadoop-mapreduce-client-shuffle 3.4.3) outside a
 * NodeManager: the auxiliary service is init()ed and start()ed with a Configuration, given a
 * local-path handler over one NodeManager local dir, and the application is initialized with
 * its job token, as the NodeManager would. Settings are the defaults except connection
 * keep-alive (on, as Hadoop's own Fetcher would need to reuse connections) and port 0.
 * Data: {@code <dataDir>/nm-local/usercache/<user>/appcache/<app>/output/<attempt>/file.out}
 * and {@code file.out.index} (per partition: startOffset, rawLength, partLength; CRC32 checksum
 * appended), written with Hadoop's SpillRecord.
 */
public final class HadoopServer {
  static final String JOB_ID = "job_1_0001";

  static String attempt(int map) {
    return String.format("attempt_1_0001_m_%06d_0", map);
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = LoadGenerator.args(argv);
    java.nio.file.Path dataDir = java.nio.file.Path.of(a.get("dataDir"));
    Workload w = Workload.forBlockSize(Integer.parseInt(a.get("block")),
        Workload.HADOOP_MAX_MAPS_PER_REQUEST);
    String user = System.getProperty("user.name");
    java.nio.file.Path nmLocal = dataDir.resolve("nm-local");
    JobConf jobConf = new JobConf();
    DataSets.ensure(dataDir, w, dir -> {
      for (int m = 0; m < w.maps(); m++) {
        java.nio.file.Path out = nmLocal.resolve("usercache/" + user + "/appcache/"
            + DataSets.APP_ID + "/output/" + attempt(m));
        long[] lengths = w.writeMapData(out.resolve("file.out"), m).lengths();
        SpillRecord index = new SpillRecord(w.reduces());
        long offset = 0;
        for (int r = 0; r < lengths.length; r++) {
          index.putIndex(new IndexRecord(offset, lengths[r], lengths[r]), r);
          offset += lengths[r];
        }
        index.writeToFile(new Path(out.resolve("file.out.index").toString()), jobConf);
      }
    });

    Configuration conf = new Configuration();
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
    conf.setBoolean(ShuffleHandler.SHUFFLE_CONNECTION_KEEP_ALIVE_ENABLED, true);
    conf.set("yarn.nodemanager.local-dirs", nmLocal.toString());
    ShuffleHandler handler = new ShuffleHandler();
    handler.setAuxiliaryLocalPathHandler(new OneDir(nmLocal));
    handler.init(conf);
    handler.start();
    Token<JobTokenIdentifier> token = new Token<>(
        new JobTokenIdentifier(new Text(JOB_ID)).getBytes(), DataSets.SECRET,
        JobTokenIdentifier.KIND_NAME, new Text("127.0.0.1"));
    handler.initializeApplication(new ApplicationInitializationContext(user,
        ApplicationId.newInstance(1, 1), ShuffleHandler.serializeServiceData(token)));
    System.out.println("READY " + ShuffleHandler.deserializeMetaData(handler.getMetaData()));
    System.out.flush();
    DataSets.awaitTermination();
  }

  /** The NodeManager's local-dir lookup, over one local dir. */
  private static final class OneDir implements AuxiliaryLocalPathHandler {
    private final java.nio.file.Path dir;

    OneDir(java.nio.file.Path dir) {
      this.dir = dir;
    }

    @Override
    public Path getLocalPathForRead(String path) throws IOException {
      java.nio.file.Path p = dir.resolve(path);
      if (!Files.exists(p)) {
        throw new DiskErrorException("no " + path + " in " + dir);
      }
      return new Path(p.toString());
    }

    @Override
    public Path getLocalPathForWrite(String path) {
      return new Path(dir.resolve(path).toString());
    }

    @Override
    public Path getLocalPathForWrite(String path, long size) {
      return getLocalPathForWrite(path);
    }

    @Override
    public Iterable<Path> getAllLocalPathsForRead(String path) {
      return List.of(new Path(dir.resolve(path).toString()));
    }
  }
}
