package grid.gateway.routing.prefix;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.openjdk.jol.info.GraphLayout;

/**
 * Bytes a prefix entry costs, measured two ways on the same full {@link PrefixMemory}: its retained size as JOL
 * walks it ({@link GraphLayout}), and the growth of the heap after full GCs ({@link MemoryMXBean}) from before the
 * memory existed to after it is full. The first case measured (16 clusters by default) runs in a fresh JVM, before
 * JOL has loaded anything.
 *
 * <p>Run: {@code bin/bench --footprint}, or after {@code mvn -Pbench -pl routing-core package}: {@code java -Xms1g
 * -Xmx1g -XX:+UseG1GC -Djol.magicFieldOffset=true -cp routing-core/target/benchmarks.jar
 * grid.gateway.routing.prefix.PrefixMemoryFootprint [clusters ...]} (default {@code 16 1}; the JOL flag lets it read
 * field offsets on JDK 25). A fixed heap keeps the collector from resizing between the two readings.
 */
public final class PrefixMemoryFootprint {
    private static final int KEYS_PER_CONFIRM = 512;
    private static final int MAX_GCS = 8;

    private PrefixMemoryFootprint() {}

    /** Prints one line per cluster count: entries, JOL bytes, heap-after-GC bytes, bytes per entry both ways. */
    public static void main(String[] args) {
        int[] clusterCounts = args.length == 0 ? new int[] {16, 1} : parse(args);
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults();
        MemoryMXBean heap = ManagementFactory.getMemoryMXBean();
        System.out.printf(
                "%s %s, %s, max heap %d MiB, capacity %d entries per cluster%n",
                System.getProperty("java.vm.name"),
                Runtime.version(),
                collectors(),
                Runtime.getRuntime().maxMemory() >> 20,
                settings.capacity());
        System.out.printf(
                "%8s %10s %14s %14s %14s %12s %12s %14s%n",
                "clusters",
                "entries",
                "JOL bytes",
                "heap bytes",
                "heap empty",
                "JOL B/entry",
                "heap B/entry",
                "heap / JOL");
        for (int clusters : clusterCounts) {
            measure(clusters, settings, heap);
        }
    }

    private static void measure(int clusters, PrefixAffinitySettings settings, MemoryMXBean heap) {
        SplittableRandom random = new SplittableRandom(11L * clusters);
        long before = usedAfterGc(heap);
        Set<ClusterId> ids = new HashSet<>();
        for (int i = 0; i < clusters; i++) {
            ids.add(new ClusterId(new SiteName("s" + i), "c" + i));
        }
        PrefixMemory memory = new PrefixMemory(settings, SystemMonotonicClock.INSTANCE, random.nextLong());
        memory.reconfigure(ids, settings);
        long empty = usedAfterGc(heap) - before;
        long entries = 0;
        for (ClusterId id : ids) {
            for (int filled = 0; filled < settings.capacity(); filled += KEYS_PER_CONFIRM) {
                memory.confirm(
                        id, BlockKeys.copyOf(random.longs(KEYS_PER_CONFIRM).toArray(), KEYS_PER_CONFIRM));
            }
            entries += memory.entries(id);
        }
        long full = usedAfterGc(heap) - before;
        // Both ways count the memory's objects and the cluster ids it holds; the heap way also counts the small
        // set of ids built here (a few hundred bytes).
        long jol = GraphLayout.parseInstance(memory).totalSize();
        Reference.reachabilityFence(ids);
        System.out.printf(
                "%8d %10d %,14d %,14d %,14d %12.1f %12.1f %14.3f%n",
                clusters,
                entries,
                jol,
                full,
                empty,
                (double) jol / entries,
                (double) full / entries,
                (double) full / jol);
        Reference.reachabilityFence(memory);
    }

    /** Heap in use after full GCs, repeated until two readings agree (or {@link #MAX_GCS} tries). */
    private static long usedAfterGc(MemoryMXBean heap) {
        long last = Long.MIN_VALUE;
        for (int i = 0; i < MAX_GCS; i++) {
            System.gc();
            long used = heap.getHeapMemoryUsage().getUsed();
            if (used == last) {
                return used;
            }
            last = used;
        }
        return last;
    }

    private static String collectors() {
        StringBuilder names = new StringBuilder();
        ManagementFactory.getGarbageCollectorMXBeans().forEach(gc -> {
            names.append(names.isEmpty() ? "" : " + ").append(gc.getName());
        });
        return names.toString();
    }

    private static int[] parse(String[] args) {
        int[] counts = new int[args.length];
        for (int i = 0; i < args.length; i++) {
            counts[i] = Integer.parseInt(args[i]);
        }
        return counts;
    }
}
