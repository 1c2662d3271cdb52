package dev.tide.driver.jobs;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.job.StreamSource;
import dev.tide.driver.job.StreamingJob;
import dev.tide.driver.streaming.DirSource;
import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code stream-wordcount <input dir> <output>}: counts the words of each file that appears in
 * the input directory (renamed in when complete), once per file: each batch writes the counts
 * of the files it took, as {@link WordCountJob} does, to {@code <output>/batch-<time>/}.
 */
public final class StreamWordCountJob implements StreamingJob {
  @Override
  public void checkArguments(JobContext context) {
    if (context.args().size() != 2) {
      throw new IllegalArgumentException("usage: stream-wordcount <input dir> <output path>;"
          + " got " + context.args().size() + " arguments " + context.args());
    }
  }

  @Override
  public void checkSource(JobContext context) throws IOException {
    checkArguments(context);
    Path dir = new Path(context.args().get(0));
    FileSystem fs = dir.getFileSystem(context.conf());
    if (!fs.exists(dir)) {
      throw new IOException("input directory " + fs.makeQualified(dir) + " does not exist");
    }
    if (!fs.getFileStatus(dir).isDirectory()) {
      throw new IOException("input " + fs.makeQualified(dir) + " is not a directory");
    }
  }

  @Override
  public StreamSource source(JobContext context) {
    checkArguments(context);
    return new DirSource(context.conf(), context.args().get(0));
  }

  @Override
  public String outputPath(JobContext context) {
    checkArguments(context);
    return context.args().get(1);
  }

  @Override
  public JobPlan batchPlan(JobContext context, StreamSource.Batch batch, String batchOutput) {
    return JobPlan.mapReduce("stream-wordcount", batch.splits(),
        WordCountJob.WordCountMapper.class, WordCountJob.WordCountReducer.class,
        TideOptions.WORDCOUNT_REDUCERS.get(context.conf()), batchOutput);
  }
}
