package dev.tide.executor;

import dev.tide.driver.job.KeyValue;
import dev.tide.executor.sort.CloseAll;
import dev.tide.executor.sort.FetchedSegments;
import dev.tide.executor.sort.RecordMerger;
import dev.tide.executor.sort.SortedRecords;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.BlockReader;
import dev.tide.shuffle.client.CorruptBlockDiagnosis;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import dev.tide.shuffle.protocol.FetchReply;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.zip.CRC32C;

/**
 * A reduce task's input: the segments of its partition from every map output of each parent
 * stage's shuffle, fetched lazily
 * (on the reducer's first {@code hasNext}) from the {@code tide_shuffle} service of each node that
 * holds map output (never from the executor that wrote them), one request of at most
 * {@link #MAX_BLOCKS_PER_REQUEST} blocks at a time, streamed into memory while the reduce task's
 * budget lasts and into local files after ({@link FetchedSegments}), then merged by key.
 * An OutOfMemoryError while fetching is the task's failure, not the service's: it is thrown as
 * such, so no map output is declared lost for it. With several parents (a join) each shuffle is
 * fetched and merged on its own, within an equal share of the memory budget, and the merged
 * streams are merged again: within a key, records of the first parent come first.
 */
final class ShuffleSegments implements AutoCloseable {
  /**
   * Thrown through the reducer when a segment cannot be fetched; ends the attempt. Its message
   * (the task's failure reason) names the shuffle, the maps, the partition, the service and the
   * cause ({@link #lossCause()}).
   */
  static final class FetchFailedException extends RuntimeException {
    private final ShuffleFetchException cause;
    private final int shuffleId;
    private final String lossCause;

    FetchFailedException(ShuffleFetchException cause, int shuffleId, int partition,
        String lossCause) {
      super("shuffle " + shuffleId + " map" + (cause.blocks().size() == 1 ? " " : "s ")
          + mapIds(cause.blocks()) + " partition " + partition + " from " + cause.host() + ":"
          + cause.port() + " lost (cause: " + lossCause + "): " + cause.getMessage(), cause);
      this.cause = cause;
      this.shuffleId = shuffleId;
      this.lossCause = lossCause;
    }

    /** A fetch failure the service or the connection reported; the cause follows its reason. */
    FetchFailedException(ShuffleFetchException cause, int shuffleId, int partition) {
      this(cause, shuffleId, partition, lossCause(cause.reason()));
    }

    /**
     * Why the map outputs are lost, as {@link TaskOutcome#lossCause()} names it: a service that
     * found a map output damaged (CORRUPT) -> disk; NOT_FOUND -> missing; CONNECT, TIMEOUT ->
     * unreachable; other refusals -> service. A corrupt block's cause comes from its diagnosis.
     */
    static String lossCause(ShuffleFetchException.Reason reason) {
      return switch (reason) {
        case CORRUPT -> CorruptBlockDiagnosis.Cause.DISK.label();
        case NOT_FOUND -> "missing";
        case CONNECT, TIMEOUT -> "unreachable";
        default -> "service";
      };
    }

    private static String mapIds(List<BlockId> blocks) {
      java.util.StringJoiner ids = new java.util.StringJoiner(",");
      for (BlockId block : blocks) {
        ids.add(String.valueOf(block.mapId()));
      }
      return ids.toString();
    }

    /** The shuffle that could not be read: the id of the stage that wrote it. */
    int shuffleId() {
      return shuffleId;
    }

    ShuffleFetchException cause() {
      return cause;
    }

    String lossCause() {
      return lossCause;
    }

    boolean wholeServiceLost() {
      return cause.reason() == ShuffleFetchException.Reason.CONNECT
          || cause.reason() == ShuffleFetchException.Reason.TIMEOUT;
    }

    List<Integer> lostMapIds() {
      List<Integer> ids = new ArrayList<>();
      for (BlockId block : cause.blocks()) {
        ids.add(block.mapId());
      }
      return ids;
    }
  }

  /**
   * A fetched block whose bytes did not match the CRC32C its map task wrote: what was announced
   * ({@code written}, {@code length}) and what arrived ({@code read}).
   */
  private record Mismatch(BlockId block, long written, long read, long length) {
    String describe() {
      return "read CRC32C " + Long.toHexString(read) + ", written " + Long.toHexString(written);
    }
  }

  /** Blocks asked for in one request: bounds a reply's header and the work one request holds. */
  static final int MAX_BLOCKS_PER_REQUEST = 64;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ShuffleSegments.class);
  private final ShuffleClient client;
  private final boolean verifyChecksums;
  private final TaskDescription task;
  private final MovedMapOutputs movedOutputs;
  private final List<FetchedSegments> fetched = new ArrayList<>();
  private final Map<String, Long> metrics = new LinkedHashMap<>();

  /**
   * @param memoryBudget bytes of fetched segments kept in memory; the rest goes to {@code dir}
   * @param dir where segments that do not fit in memory are written (deleted by {@link #close})
   */
  ShuffleSegments(ShuffleClient client, TaskDescription task, long memoryBudget, Path dir,
      boolean verifyChecksums) {
    this(client, task, memoryBudget, dir, verifyChecksums, new MovedMapOutputs());
  }

  /** @param movedOutputs where outputs went since the task was described: fetched there */
  ShuffleSegments(ShuffleClient client, TaskDescription task, long memoryBudget, Path dir,
      boolean verifyChecksums, MovedMapOutputs movedOutputs) {
    this.movedOutputs = movedOutputs;
    this.client = client;
    this.task = task;
    this.verifyChecksums = verifyChecksums;
    int inputs = task.inputs().size();
    for (int i = 0; i < inputs; i++) {
      fetched.add(new FetchedSegments(memoryBudget / Math.max(1, inputs),
          inputs == 1 ? dir : dir.resolve("input-" + i)));
    }
  }

  Map<String, Long> metrics() {
    return Collections.unmodifiableMap(metrics);
  }

  /**
   * Every record of the partition, sorted by key with equal keys adjacent, fetched (on the
   * first {@code hasNext}) and merged in bounded memory.
   */
  Iterator<KeyValue> records() {
    return new Iterator<>() {
      private SortedRecords merged;
      private RecordMerger join;
      private Boolean ready;

      @Override
      public boolean hasNext() {
        try {
          if (merged == null) {
            fetchAll();
            if (fetched.size() == 1) {
              merged = fetched.get(0).merged();
            } else {
              List<SortedRecords> streams = new ArrayList<>();
              for (FetchedSegments input : fetched) {
                streams.add(input.merged());
              }
              join = new RecordMerger(streams);
              merged = join;
            }
          }
          if (ready == null) {
            ready = merged.advance();
          }
          return ready;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public KeyValue next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        ready = null;
        return new KeyValue(merged.key(), merged.value(), join == null ? 0 : join.input());
      }
    };
  }

  /** Deletes what was written to local disk; safe to call twice. */
  @Override
  public void close() throws IOException {
    CloseAll.of(fetched);
  }

  private void fetchAll() throws IOException {
    long start = System.currentTimeMillis();
    long bytes = 0;
    java.util.Set<String> services = new java.util.HashSet<>();
    for (int i = 0; i < task.inputs().size(); i++) {
      TaskDescription.ShuffleInput input = task.inputs().get(i);
      Map<String, List<MapLocation>> byService = new LinkedHashMap<>();
      for (MapLocation described : input.mapOutputs()) {
        MapLocation location = movedOutputs.where(input.shuffleId(), described);
        byService.computeIfAbsent(location.host() + ":" + location.shufflePort(),
            k -> new ArrayList<>()).add(location);
      }
      services.addAll(byService.keySet());
      for (List<MapLocation> locations : byService.values()) {
        MapLocation first = locations.get(0);
        for (int from = 0; from < locations.size(); from += MAX_BLOCKS_PER_REQUEST) {
          List<BlockId> blocks = new ArrayList<>();
          for (MapLocation location : locations.subList(from,
              Math.min(locations.size(), from + MAX_BLOCKS_PER_REQUEST))) {
            blocks.add(BlockId.of(input.shuffleId(), location.mapId(), task.index()));
          }
          bytes += fetch(fetched.get(i), input.shuffleId(), first, blocks);
        }
      }
    }
    long inMemory = 0;
    long onDisk = 0;
    for (FetchedSegments input : fetched) {
      inMemory += input.inMemoryBytes();
      onDisk += input.onDiskBytes();
    }
    metrics.put("fetchStartMillis", start);
    metrics.put("fetchMillis", System.currentTimeMillis() - start);
    metrics.put("bytesFetched", bytes);
    metrics.put("shuffleServices", (long) services.size());
    metrics.put("fetchedInMemoryBytes", inMemory);
    metrics.put("fetchedToDiskBytes", onDisk);
  }

  /**
   * One request, verified. A block whose bytes do not match the CRC32C its map task wrote is a
   * corrupt block: the serving service is asked to read it from its disk again
   * ({@link CorruptBlockDiagnosis}). Cause {@code disk}: the map output is lost at once (a fetch
   * failure naming those blocks; the driver reruns the map and this task retries). Cause
   * {@code network} or {@code unknown}: those blocks are fetched once more (the intact ones are
   * kept); a block that fails again is treated as lost with the cause found the second time.
   */
  private long fetch(FetchedSegments fetched, int shuffleId, MapLocation service,
      List<BlockId> blocks) throws IOException {
    List<BlockId> asked = blocks;
    long bytes = 0;
    for (int attempt = 1; ; attempt++) {
      List<Mismatch> mismatches = new ArrayList<>();
      bytes += fetchOnce(fetched, shuffleId, service, asked, mismatches);
      if (mismatches.isEmpty()) {
        return bytes;
      }
      metrics.merge("checksumMismatches", (long) mismatches.size(), Long::sum);
      List<BlockId> onDisk = new ArrayList<>();
      List<String> onDiskWhy = new ArrayList<>();
      List<BlockId> other = new ArrayList<>();
      List<String> otherWhy = new ArrayList<>();
      String otherCause = null;
      for (Mismatch m : mismatches) {
        CorruptBlockDiagnosis diagnosis = CorruptBlockDiagnosis.diagnose(client, service.host(),
            service.shufflePort(), m.block(), m.written(), m.read(), m.length());
        String why = "map " + m.block().mapId() + ": " + m.describe() + "; " + diagnosis.detail();
        LOG.warn("Corrupt block: shuffle {} map {} partition {} from {}:{}: {}; diagnosis: {}"
            + " ({}) (fetch {} of at most 2)", shuffleId, m.block().mapId(),
            m.block().reduceStart(), service.host(), service.shufflePort(), m.describe(),
            diagnosis.cause().label(), diagnosis.detail(), attempt);
        String label = diagnosis.cause().label();
        metrics.merge("corruptBlocks" + Character.toUpperCase(label.charAt(0))
            + label.substring(1), 1L, Long::sum);
        if (diagnosis.cause() == CorruptBlockDiagnosis.Cause.DISK) {
          onDisk.add(m.block());
          onDiskWhy.add(why);
        } else {
          other.add(m.block());
          otherWhy.add(why);
          otherCause = otherCause == null ? diagnosis.cause().label() : otherCause;
        }
      }
      if (!onDisk.isEmpty()) {
        throw corrupt(service, onDisk, onDiskWhy, shuffleId,
            CorruptBlockDiagnosis.Cause.DISK.label(), "the file on the node's disk is damaged");
      }
      if (attempt == 2) {
        throw corrupt(service, other, otherWhy, shuffleId, otherCause,
            "checksum mismatch on two fetches");
      }
      asked = other; // the blocks that arrived intact are kept
    }
  }

  private FetchFailedException corrupt(MapLocation service, List<BlockId> blocks,
      List<String> why, int shuffleId, String cause, String summary) {
    return new FetchFailedException(new ShuffleFetchException(service.host(),
        service.shufflePort(), blocks, ShuffleFetchException.Reason.CORRUPT, "corrupt block ("
        + summary + "): " + String.join("; ", why) + "; the map output is treated as lost",
        null), shuffleId, task.index(), cause);
  }

  /**
   * One request; each block's bytes go to memory or disk as they arrive, their CRC32C computed
   * on the way. Returns the bytes; blocks that fail their checksum are abandoned and added to
   * {@code mismatches}.
   */
  private long fetchOnce(FetchedSegments fetched, int shuffleId, MapLocation service,
      List<BlockId> blocks, List<Mismatch> mismatches) throws IOException {
    FetchedSegments.SegmentSink[][] sinks = new FetchedSegments.SegmentSink[1][];
    CRC32C[][] crcs = new CRC32C[1][];
    long[][] expected = new long[1][];
    long[][] announced = new long[1][];
    // set on the I/O thread (start, in-memory writes) or the task thread (writes to disk)
    java.util.concurrent.atomic.AtomicReference<IOException> failed =
        new java.util.concurrent.atomic.AtomicReference<>();
    long[] total = new long[1];
    try {
      client.fetch(service.host(), service.shufflePort(), blocks, new BlockReader() {
        private Offload offload;

        @Override
        public void attach(Offload offload) {
          this.offload = offload;
        }

        @Override
        public void start(long[] lengths, long[] checksums) {
          try {
            abandon(sinks[0]); // a retried request starts over
            expected[0] = checksums;
            announced[0] = lengths;
            crcs[0] = new CRC32C[lengths.length];
            for (int i = 0; verifyChecksums && i < lengths.length; i++) {
              if (checksums[i] != FetchReply.NO_CHECKSUM) {
                crcs[0][i] = new CRC32C();
              }
            }
            sinks[0] = new FetchedSegments.SegmentSink[lengths.length];
            total[0] = 0;
            for (int i = 0; i < lengths.length; i++) {
              total[0] += lengths[i];
              if (lengths[i] > 0) {
                sinks[0][i] = fetched.add(blocks.get(i) + " from " + service.host() + ":"
                    + service.shufflePort(), lengths[i]);
              }
            }
          } catch (IOException e) {
            failed.compareAndSet(null, e);
          }
        }

        /**
         * Memory sinks are written here; a file sink's bytes are copied and written by the task
         * thread (this is the client's I/O thread, which must not wait for a disk).
         */
        @Override
        public void read(int index, ByteBuffer data) {
          if (failed.get() != null) {
            return;
          }
          if (crcs[0][index] != null) {
            crcs[0][index].update(data.duplicate());
          }
          FetchedSegments.SegmentSink sink = sinks[0][index];
          if (!sink.onDisk()) {
            write(sink, data);
            return;
          }
          byte[] copy = new byte[data.remaining()];
          data.get(copy);
          offload.submit(copy.length, () -> write(sink, ByteBuffer.wrap(copy)));
        }

        private void write(FetchedSegments.SegmentSink sink, ByteBuffer data) {
          if (failed.get() != null) {
            return;
          }
          try {
            sink.write(data);
          } catch (IOException e) {
            failed.compareAndSet(null, e);
          }
        }
      });
    } catch (ShuffleFetchException e) {
      abandon(sinks[0]);
      if (hasOutOfMemoryCause(e)) {
        // Our own heap ran out while receiving: not the service's fault, no map is lost.
        OutOfMemoryError oom = new OutOfMemoryError("while fetching shuffle input: "
            + e.getMessage());
        oom.initCause(e);
        throw oom;
      }
      throw new FetchFailedException(e, shuffleId, task.index());
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    if (sinks[0] != null) {
      for (int i = 0; i < sinks[0].length; i++) {
        FetchedSegments.SegmentSink sink = sinks[0][i];
        CRC32C crc = crcs[0][i];
        if (crc != null && crc.getValue() != expected[0][i]) {
          mismatches.add(new Mismatch(blocks.get(i), expected[0][i], crc.getValue(),
              announced[0][i]));
          if (sink != null) {
            sink.abandon();
          }
        } else if (sink != null) {
          sink.finish();
        }
      }
    }
    return total[0];
  }

  private static void abandon(FetchedSegments.SegmentSink[] sinks) throws IOException {
    if (sinks == null) {
      return;
    }
    for (FetchedSegments.SegmentSink sink : sinks) {
      if (sink != null) {
        sink.abandon();
      }
    }
  }

  private static boolean hasOutOfMemoryCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError || String.valueOf(t.getMessage())
          .contains("java.lang.OutOfMemoryError")) {
        return true;
      }
    }
    return false;
  }
}
