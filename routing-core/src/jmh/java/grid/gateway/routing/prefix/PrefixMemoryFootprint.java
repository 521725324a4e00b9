package grid.gateway.routing.prefix;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.util.Set;
import java.util.SplittableRandom;
import org.openjdk.jol.info.GraphLayout;

/**
 * Bytes a prefix entry costs: the retained size (JOL) of a full 16,384-entry LRU and of 16 of them, divided by
 * their entries.
 *
 * <p>Run: {@code mvn -Pbench -pl routing-core package && java -Djol.magicFieldOffset=true -cp
 * routing-core/target/benchmarks.jar grid.gateway.routing.prefix.PrefixMemoryFootprint} (the JOL flag lets it read
 * field offsets on JDK 25).
 */
public final class PrefixMemoryFootprint {
    private PrefixMemoryFootprint() {}

    /** Prints bytes per entry. */
    public static void main(String[] args) {
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults();
        SplittableRandom random = new SplittableRandom(11);
        for (int clusters : new int[] {1, 16}) {
            PrefixMemory memory = new PrefixMemory(settings, SystemMonotonicClock.INSTANCE, random.nextLong());
            Set<ClusterId> ids = new java.util.HashSet<>();
            for (int i = 0; i < clusters; i++) {
                ids.add(new ClusterId(new SiteName("s" + i), "c" + i));
            }
            memory.reconfigure(ids, settings);
            long entries = 0;
            for (ClusterId id : ids) {
                for (int filled = 0; filled < settings.capacity(); filled += 512) {
                    memory.confirm(id, BlockKeys.copyOf(random.longs(512).toArray(), 512));
                }
                entries += memory.entries(id);
            }
            long bytes = GraphLayout.parseInstance(memory).totalSize();
            System.out.printf(
                    "%d clusters x %d entries: %d bytes retained, %.1f bytes per entry%n",
                    clusters, settings.capacity(), bytes, (double) bytes / entries);
        }
    }
}
