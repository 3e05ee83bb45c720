package io.bull4j.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/** JVM heap and GC counters for the scale modes. Heap figures include the harness's own arrays. */
final class JvmStats {
    private JvmStats() {
    }

    /** Heap in use right after a full collection, in MiB: what the JVM really holds, without garbage. */
    static double heapAfterGcMb() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0;
    }

    /** {collections, collection ms} summed over the JVM's collectors since start. */
    static long[] gc() {
        long count = 0;
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            ms += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, ms};
    }

    /** Adds the GC work since {@code before} ({@link #gc()}) to a run. */
    static void putGcSince(Run r, long[] before) {
        long[] now = gc();
        r.put("jvm_gc_count", now[0] - before[0]).put("jvm_gc_ms", now[1] - before[1]);
    }
}
