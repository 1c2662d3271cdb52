package dev.tide.it;

import dev.tide.am.client.TideClient;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;

/** Runs the real submission client, as {@code yarn jar tide-app.jar ...} would, in-process. */
public final class Submitter {
  private Submitter() {}

  /** Submits and waits; the client's output goes to {@code echo} as well as into the result. */
  public static JobRun run(Configuration conf, OutputStream echo, String... args)
      throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(new TeeStream(captured, echo), true,
        StandardCharsets.UTF_8);
    TideClient client = new TideClient(out);
    long start = System.nanoTime();
    client.setConf(new Configuration(conf)); // as TideClient.main: run() parses every option
    int code = client.run(args);
    long wall = (System.nanoTime() - start) / 1_000_000;
    out.flush();
    String appId = client.getLastApplicationId() == null ? null
        : client.getLastApplicationId().toString();
    return new JobRun(code, captured.toString(StandardCharsets.UTF_8), appId, wall);
  }

  /** Writes to two streams. */
  private static final class TeeStream extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    TeeStream(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int v) throws java.io.IOException {
      a.write(v);
      if (b != null) {
        b.write(v);
      }
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      if (b != null) {
        b.write(buf, off, len);
      }
    }

    @Override
    public void flush() throws java.io.IOException {
      a.flush();
      if (b != null) {
        b.flush();
      }
    }
  }
}
