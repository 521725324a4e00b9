package grid.gateway.app.observe;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.service.registry.Services;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one forwarded request records in the gateway's meters, as {@code Forwarding} calls them for a 2xx answer:
 * {@code upstreamAnswered} (status counter and latency timer) and {@code cachedTokens} (the predicted and reported
 * counters), in Helidon's registry, for a request affinity decided ({@code decided}) and one it did not ({@code
 * unkeyed}, the {@code none} outcome). Run with {@code -prof gc} for the bytes allocated per request.
 *
 * <p>Run: {@code bin/bench MetricsBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MetricsBenchmark {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final Duration TO_HEADERS = Duration.ofNanos(1_234_567);
    private static final Optional<AffinityOutcome> HIT = Optional.of(AffinityOutcome.HIT);
    private static final OptionalLong REPORTED = OptionalLong.of(128);

    private GatewayMetrics metrics;

    @Setup
    public void setUp() {
        MonotonicClock clock = System::nanoTime;
        BackendCluster cluster = new BackendCluster(
                EAST_A,
                URI.create("http://127.0.0.1:1/east-a"),
                Set.of("demo-model"),
                Optional.empty(),
                OptionalInt.empty(),
                false);
        Grid grid = Grid.of(EAST_A.site(), List.of(cluster));
        PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1L);
        memory.reconfigure(Set.of(EAST_A), PrefixAffinitySettings.defaults());
        metrics = new GatewayMetrics(
                Services.get(MeterRegistry.class),
                new ClusterState(
                        () -> grid,
                        new Admission(new QueueDepthWindow(Duration.ofSeconds(10)), new OutlierEjector()),
                        memory,
                        clock));
    }

    @TearDown
    public void tearDown() {
        metrics.close();
    }

    @Benchmark
    public void decided() {
        metrics.upstreamAnswered(EAST_A, 200, TO_HEADERS);
        metrics.cachedTokens(EAST_A, HIT, 128, REPORTED);
    }

    @Benchmark
    public void unkeyed() {
        metrics.upstreamAnswered(EAST_A, 200, TO_HEADERS);
        metrics.cachedTokens(EAST_A, Optional.empty(), 0, REPORTED);
    }
}
