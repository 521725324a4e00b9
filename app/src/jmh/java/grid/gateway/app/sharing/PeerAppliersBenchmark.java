package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.UTF_8;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The reader's apply workers ({@link PeerAppliers}) at full speed: peers' entries of {@code keys} new keys, spread
 * evenly over 4 clusters (full 16,384-entry LRUs), handed to {@code threads} workers as the reader hands them (each
 * cluster to one worker) and applied as {@code SharingReader} applies them (parse, look the cluster up, apply);
 * one invocation hands 1,000 entries (one XREAD batch) and waits until they are applied. The score is entries a
 * second the workers apply, to compare with the 45,000 a replica receives at 10 replicas × 5,000 requests a second.
 *
 * <p>Run: {@code java -jar app/target/benchmarks.jar PeerAppliersBenchmark}. The workers need free cores to run side
 * by side; on a machine shared with other work, read the ratio of one run's scores, not the scores.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PeerAppliersBenchmark {
    private static final int CLUSTERS = 4;
    private static final int ROTATION = 4096;
    private static final int BATCH = 1000;

    /** Block keys an entry carries. */
    @Param({"512"})
    public int keys;

    /** Apply workers. */
    @Param({"1", "2", "4"})
    public int threads;

    private Map<byte[], byte[]>[] entries;
    private int[] workerOf;
    private PeerAppliers appliers;
    private int next;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void setUp() {
        SplittableRandom random = new SplittableRandom(19);
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults();
        PrefixMemory memory = new PrefixMemory(settings, SystemMonotonicClock.INSTANCE, random.nextLong());
        Map<String, ClusterId> byKey = new HashMap<>();
        ClusterId[] clusters = new ClusterId[CLUSTERS];
        for (int c = 0; c < CLUSTERS; c++) {
            clusters[c] = new ClusterId(new SiteName("east"), "east-" + c);
            byKey.put(SharedEntry.of("0", clusters[c], true, 0, new long[] {1}).clusterKey(), clusters[c]);
        }
        memory.reconfigure(Set.of(clusters), settings);
        for (ClusterId cluster : clusters) {
            long[] fill = random.longs(settings.capacity()).toArray();
            memory.confirm(cluster, BlockKeys.copyOf(fill, fill.length));
        }
        entries = new Map[ROTATION];
        workerOf = new int[ROTATION];
        for (int i = 0; i < ROTATION; i++) {
            long[] fresh = random.longs(keys).toArray();
            Map<byte[], byte[]> raw = new LinkedHashMap<>();
            SharedEntry.of("0abc", clusters[i % CLUSTERS], true, System.currentTimeMillis(), fresh)
                    .fields()
                    .forEach((name, value) -> raw.put(name.getBytes(UTF_8), value.getBytes(UTF_8)));
            entries[i] = raw;
            workerOf[i] = i % CLUSTERS;
        }
        appliers = new PeerAppliers(
                threads,
                PeerAppliers.QUEUE_CAPACITY,
                fields -> {
                    SharedEntry entry = SharedEntry.parseRaw(fields).orElseThrow();
                    ClusterId cluster = byKey.get(entry.clusterKey());
                    memory.applyPeer(cluster, BlockKeys.copyOf(entry.keys(), entry.keys().length), true, 1_000_000);
                },
                () -> {});
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        appliers.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public boolean applyBatch() throws InterruptedException {
        for (int i = 0; i < BATCH; i++) {
            int at = next++ & (ROTATION - 1);
            appliers.offer(entries[at], workerOf[at], true);
        }
        return appliers.drain(60_000);
    }
}
