package dev.tide.driver.streaming;

import dev.tide.driver.conf.TideOptions;
import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.StreamSource;
import dev.tide.input.FileRangeSplits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;

/**
 * The files that appear in a directory of any Hadoop FileSystem (written elsewhere, then
 * renamed in, as with Spark's file stream), each taken by exactly one batch: a batch takes every
 * file (names not starting with '_' or '.') not taken before. What was taken is known from the
 * logged batches' splits, so a resubmitted job skips every file an earlier run took. A batch's
 * "records" are its input bytes. Splits: {@code tide.wordcount.splitSize} (0: one per block).
 */
public final class DirSource implements StreamSource {
  private final Configuration conf;
  private final String dir;
  private final long splitSize;
  private final Set<String> taken = new HashSet<>();

  public DirSource(Configuration conf, String dir) {
    this.conf = conf;
    this.dir = dir;
    this.splitSize = TideOptions.WORDCOUNT_SPLIT_SIZE.get(conf);
  }

  @Override
  public void restore(List<Batch> logged) throws IOException {
    for (Batch batch : logged) {
      for (InputSplit split : batch.splits()) {
        taken.add(FileRangeSplits.decode(split.payload()).path());
      }
    }
  }

  @Override
  public Batch take(long batchTimeMillis) throws IOException {
    List<FileStatus> fresh = new ArrayList<>();
    long bytes = 0;
    for (FileStatus file : FileRangeSplits.inputFiles(conf, dir)) {
      if (taken.add(file.getPath().toString())) {
        fresh.add(file);
        bytes += file.getLen();
      }
    }
    return new Batch(batchTimeMillis, FileRangeSplits.plan(conf, fresh, splitSize), bytes,
        new byte[0]);
  }
}
