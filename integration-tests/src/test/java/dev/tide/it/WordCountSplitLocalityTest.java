package dev.tide.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.driver.job.InputSplit;
import dev.tide.driver.job.JobContext;
import dev.tide.driver.job.JobPlan;
import dev.tide.driver.jobs.WordCountJob;
import dev.tide.input.FileRangeSplits;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * wordcount's input splits prefer the hosts that store their HDFS block: on a MiniDFSCluster
 * whose DataNodes have distinct host names, every split of a multi-block file is one block, and
 * its preferred hosts are exactly the hosts the NameNode reports for that block.
 */
class WordCountSplitLocalityTest {
  private static final int BLOCK = 1024 * 1024;
  private static final String[] HOSTS = {"dn-a.tide.test", "dn-b.tide.test", "dn-c.tide.test"};

  @TempDir static Path workDir;
  private static MiniDFSCluster dfs;

  @BeforeAll
  static void startHdfs() throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, workDir.resolve("dfs").toString());
    conf.setLong("dfs.blocksize", BLOCK);
    conf.setInt("dfs.replication", 2);
    // The DataNodes all run on 127.0.0.1 under made-up names; let the NameNode accept them.
    conf.setBoolean("dfs.namenode.datanode.registration.ip-hostname-check", false);
    SharedCluster.stop(); // this class starts a cluster of its own
    dfs = new MiniDFSCluster.Builder(conf).numDataNodes(HOSTS.length).hosts(HOSTS).build();
    dfs.waitActive();
  }

  @AfterAll
  static void stopHdfs() {
    if (dfs != null) {
      dfs.shutdown();
    }
  }

  @Test
  void eachSplitPrefersTheHostsOfItsBlock() throws Exception {
    FileSystem fs = dfs.getFileSystem();
    org.apache.hadoop.fs.Path input = new org.apache.hadoop.fs.Path("/in/words.txt");
    long length = 3L * BLOCK + BLOCK / 2; // 4 blocks, the last one partial
    byte[] line = "the quick brown fox jumps over the lazy dog\n".getBytes(StandardCharsets.UTF_8);
    try (OutputStream out = fs.create(input)) {
      for (long written = 0; written < length; written += line.length) {
        out.write(line, 0, (int) Math.min(line.length, length - written));
      }
    }

    Configuration jobConf = new Configuration(dfs.getConfiguration(0));
    JobPlan plan = new WordCountJob().plan(new JobContext(jobConf,
        List.of(fs.makeQualified(input).toString(), "/out")));

    LocatedBlocks blocks = dfs.getNameNodeRpc().getBlockLocations(input.toString(), 0, length);
    List<LocatedBlock> located = blocks.getLocatedBlocks();
    assertEquals(4, located.size(), "a multi-block file");
    assertEquals(located.size(), plan.stage(0).splits().size(), "one split per block");
    Set<String> hostsSeen = new HashSet<>();
    for (int i = 0; i < located.size(); i++) {
      LocatedBlock block = located.get(i);
      InputSplit split = plan.stage(0).splits().get(i);
      FileRangeSplits.FileRange range = FileRangeSplits.decode(split.payload());
      assertEquals(block.getStartOffset(), range.start(), "split " + i + " starts at its block");
      assertEquals(block.getBlockSize(), range.length(), "split " + i + " covers its block");
      Set<String> blockHosts = new HashSet<>();
      for (DatanodeInfo dn : block.getLocations()) {
        blockHosts.add(dn.getHostName());
      }
      assertEquals(2, blockHosts.size(), "block " + i + " has two replicas: " + blockHosts);
      assertEquals(blockHosts, new HashSet<>(split.preferredHosts()),
          "split " + i + " prefers the hosts of block " + block.getBlock());
      assertTrue(Set.of(HOSTS).containsAll(blockHosts), "named DataNodes: " + blockHosts);
      hostsSeen.addAll(blockHosts);
    }
    assertTrue(hostsSeen.size() >= 2, "blocks spread over DataNodes: " + hostsSeen);
  }
}
