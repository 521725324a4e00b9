package grid.gateway.routing.select;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.Randomness;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One selection among 8 candidates for a request of 512 keys, against prefix memories that are full (16,384 entries
 * a cluster), and one confirmation of 512 keys.
 *
 * <p>Run: {@code mvn -Pbench -pl routing-core package && java -jar routing-core/target/benchmarks.jar
 * CandidateSelectorBenchmark}. The sticky cluster holds the request's first 400 blocks, the others hold none of
 * them, so {@code select} computes eight runs, the longest of 400 lookups.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CandidateSelectorBenchmark {
    private static final int CLUSTERS = 8;
    private static final int KEYS = 512;

    private final CandidateSelector selector = new CandidateSelector(Randomness.INSTANCE);
    private final PrefixAffinitySettings settings = PrefixAffinitySettings.defaults();
    private PrefixMemory memory;
    private List<Candidate> candidates;
    private BlockKeys request;
    private BlockKeys[] confirmations;
    private int next;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(7);
        memory = new PrefixMemory(settings, SystemMonotonicClock.INSTANCE, random.nextLong());
        candidates = new ArrayList<>();
        Set<ClusterId> ids = new HashSet<>();
        for (int i = 0; i < CLUSTERS; i++) {
            ClusterId id = new ClusterId(new SiteName("site" + i), "site" + i + "-a");
            ids.add(id);
            BackendCluster cluster = new BackendCluster(
                    id, URI.create("http://127.0.0.1:1"), Set.of("m"), Optional.empty(), OptionalInt.empty(), false);
            candidates.add(new Candidate(cluster, OptionalDouble.of(i % 3)));
        }
        memory.reconfigure(ids, settings);
        for (ClusterId id : ids) {
            for (int filled = 0; filled < settings.capacity(); filled += KEYS) {
                memory.confirm(id, keys(random, KEYS));
            }
        }
        request = keys(random, KEYS);
        long[] held = request.toArray();
        memory.confirm(candidates.get(5).cluster().id(), BlockKeys.copyOf(held, 400));
        confirmations = new BlockKeys[64];
        for (int i = 0; i < confirmations.length; i++) {
            confirmations[i] = keys(random, KEYS);
        }
    }

    private static BlockKeys keys(SplittableRandom random, int count) {
        return BlockKeys.copyOf(random.longs(count).toArray(), count);
    }

    @Benchmark
    public Selection select() {
        return selector.select(candidates, request, memory::run, settings);
    }

    @Benchmark
    public void confirm512() {
        // New keys each time (cycling through 64 sets), so every confirmation also evicts 512 entries.
        memory.confirm(candidates.get(next++ & 7).cluster().id(), confirmations[next & 63]);
    }
}
