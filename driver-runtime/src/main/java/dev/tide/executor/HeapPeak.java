package dev.tide.executor;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The executor's peak heap use: the most heap found in use right after a full collection (live
 * data, not garbage waiting to be collected), from the JVM's GC notifications. Until the first
 * full collection it is the most found after a young one (an upper bound: the old generation
 * still holds dead objects then), and before any collection the heap in use now. Thread-safe.
 */
final class HeapPeak {
  private final AtomicLong peakAfterFullGc = new AtomicLong();
  private final AtomicLong peakAfterYoungGc = new AtomicLong();
  private final Set<String> heapPools = new HashSet<>();

  HeapPeak() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener((notification, handback) -> {
          if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
              notification.getType())) {
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                (CompositeData) notification.getUserData());
            record(info.getGcInfo().getMemoryUsageAfterGc(),
                info.getGcAction().contains("major") ? peakAfterFullGc : peakAfterYoungGc);
          }
        }, null, null);
      }
    }
  }

  private void record(Map<String, MemoryUsage> afterGc, AtomicLong peak) {
    long used = 0;
    for (Map.Entry<String, MemoryUsage> e : afterGc.entrySet()) {
      if (heapPools.contains(e.getKey())) {
        used += e.getValue().getUsed();
      }
    }
    peak.accumulateAndGet(used, Math::max);
  }

  /** Bytes; see the class comment. */
  long bytes() {
    long full = peakAfterFullGc.get();
    if (full > 0) {
      return full;
    }
    long young = peakAfterYoungGc.get();
    return young > 0 ? young
        : ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
