package dev.tide.executor;

import dev.tide.driver.job.Record;
import dev.tide.driver.job.RecordCodec;
import dev.tide.driver.scheduler.MapLocation;
import dev.tide.driver.scheduler.TaskDescription;
import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.ShuffleClient;
import dev.tide.shuffle.client.ShuffleFetchException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * A reduce task's input: the segments of its partition from every map output, fetched lazily
 * (on the reducer's first {@code hasNext}) from the {@code tide_shuffle} service of each node that
 * holds map output, one request per node. Never from the executor that wrote them.
 */
final class ShuffleSegments {
  /** Thrown through the reducer when a segment cannot be fetched; ends the attempt. */
  static final class FetchFailedException extends RuntimeException {
    private final ShuffleFetchException cause;

    FetchFailedException(ShuffleFetchException cause) {
      super(cause.getMessage(), cause);
      this.cause = cause;
    }

    ShuffleFetchException cause() {
      return cause;
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

  private final ShuffleClient client;
  private final TaskDescription task;
  private final Map<String, Long> metrics = new LinkedHashMap<>();

  ShuffleSegments(ShuffleClient client, TaskDescription task) {
    this.client = client;
    this.task = task;
  }

  Map<String, Long> metrics() {
    return Collections.unmodifiableMap(metrics);
  }

  Iterator<Record> records() {
    return new Iterator<>() {
      private Iterator<byte[]> segments;
      private Iterator<Record> current = Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        if (segments == null) {
          segments = fetchAll().iterator();
        }
        while (!current.hasNext() && segments.hasNext()) {
          current = RecordCodec.read(segments.next());
        }
        return current.hasNext();
      }

      @Override
      public Record next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return current.next();
      }
    };
  }

  private List<byte[]> fetchAll() {
    long start = System.currentTimeMillis();
    Map<String, List<MapLocation>> byService = new LinkedHashMap<>();
    for (MapLocation location : task.mapOutputs()) {
      byService.computeIfAbsent(location.host() + ":" + location.shufflePort(),
          k -> new ArrayList<>()).add(location);
    }
    List<byte[]> all = new ArrayList<>();
    long bytes = 0;
    for (List<MapLocation> locations : byService.values()) {
      List<BlockId> blocks = new ArrayList<>();
      for (MapLocation location : locations) {
        blocks.add(BlockId.of(task.shuffleId(), location.mapId(), task.index()));
      }
      MapLocation first = locations.get(0);
      try {
        for (byte[] segment : client.fetch(first.host(), first.shufflePort(), blocks)) {
          bytes += segment.length;
          all.add(segment);
        }
      } catch (ShuffleFetchException e) {
        throw new FetchFailedException(e);
      }
    }
    metrics.put("fetchStartMillis", start);
    metrics.put("fetchMillis", System.currentTimeMillis() - start);
    metrics.put("bytesFetched", bytes);
    metrics.put("shuffleServices", (long) byService.size());
    return all;
  }
}
