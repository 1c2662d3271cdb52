package dev.tide.bench.shuffle.hadoop;

import dev.tide.bench.shuffle.DataSets;
import dev.tide.bench.shuffle.LoadGenerator;
import dev.tide.bench.shuffle.Workload;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.crypto.SecretKey;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;

/**
 * Load generator for Hadoop's ShuffleHandler, speaking what Hadoop's Fetcher speaks: HTTP GET
 * {@code /mapOutput?job=..&reduce=..&map=a1,a2,...} (at most 20 maps per request, Hadoop's
 * MAX_MAPS_AT_ONCE) with the {@code UrlHash} HMAC of the job token and the name/version headers;
 * the reply is, per map, a ShuffleHeader (mapId, compressedLength, uncompressedLength,
 * forReduce) then the segment bytes. HttpURLConnection with keep-alive (one connection per
 * concurrent request, reused). Each segment is read into a per-thread buffer and checked.
 */
public final class HadoopClient {
  public static void main(String[] argv) throws Exception {
    System.setProperty("http.maxConnections", "64");
    Map<String, String> a = LoadGenerator.args(argv);
    int port = Integer.parseInt(a.get("port"));
    Workload w = Workload.forBlockSize(Integer.parseInt(a.get("block")),
        Workload.HADOOP_MAX_MAPS_PER_REQUEST);
    SecretKey key = JobTokenSecretManager.createSecretKey(DataSets.SECRET);
    ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[w.blockSize()]);
    LoadGenerator.run("hadoop", w, (reduce, mapStart, mapEnd) -> {
      StringBuilder q = new StringBuilder("http://127.0.0.1:").append(port)
          .append("/mapOutput?job=").append(HadoopServer.JOB_ID).append("&reduce=").append(reduce)
          .append("&map=");
      for (int m = mapStart; m < mapEnd; m++) {
        q.append(m == mapStart ? "" : ",").append(HadoopServer.attempt(m));
      }
      URL url = new URL(q.toString());
      HttpURLConnection conn = (HttpURLConnection) url.openConnection();
      conn.setRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH,
          SecureShuffleUtils.hashFromString(SecureShuffleUtils.buildMsgFrom(url), key));
      conn.setRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
      conn.setRequestProperty(ShuffleHeader.HTTP_HEADER_VERSION,
          ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
      conn.setConnectTimeout(10_000);
      conn.setReadTimeout(60_000);
      int code = conn.getResponseCode();
      if (code != 200) {
        InputStream err = conn.getErrorStream();
        String body = err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8);
        throw new IOException("HTTP " + code + " from ShuffleHandler: " + body);
      }
      byte[] buf = buffers.get();
      long bytes = 0;
      try (DataInputStream in = new DataInputStream(
          new BufferedInputStream(conn.getInputStream(), 64 * 1024))) {
        for (int m = mapStart; m < mapEnd; m++) {
          // ShuffleHeader.readFields
          String mapId = WritableUtils.readStringSafely(in, 1000);
          long compressed = WritableUtils.readVLong(in);
          WritableUtils.readVLong(in);
          int forReduce = WritableUtils.readVInt(in);
          if (forReduce != reduce || !mapId.equals(HadoopServer.attempt(m))
              || compressed != w.blockSize()) {
            throw new IOException("unexpected header " + mapId + " reduce " + forReduce + " len "
                + compressed + " for map " + m + " reduce " + reduce);
          }
          in.readFully(buf, 0, (int) compressed);
          ByteBuffer head = ByteBuffer.wrap(buf);
          w.check(m, reduce, compressed, head.getInt(0), head.getInt(4));
          bytes += compressed;
        }
        if (in.read() != -1) {
          throw new IOException("trailing bytes after " + (mapEnd - mapStart) + " map outputs");
        }
      }
      return bytes;
    }, a);
  }
}
