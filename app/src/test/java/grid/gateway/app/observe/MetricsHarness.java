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
import grid.gateway.routing.time.ManualClock;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.service.registry.Services;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Test fixture: a {@link GatewayMetrics} over a grid of two east clusters (east-a with max_queue_depth 5, east-b
 * without), a manual clock, a 10 s window and a prefix memory, in Helidon's registry. Tests swap the grid through
 * {@link #grid()}. One per test, as a {@code @RegisterExtension} field or closed by the test; {@link #close()} (after
 * each test, as an extension) removes its meters.
 */
final class MetricsHarness implements AutoCloseable, AfterEachCallback {
    static final SiteName EAST = new SiteName("east");
    static final SiteName WEST = new SiteName("west");
    static final ClusterId EAST_A = new ClusterId(EAST, "east-a");
    static final ClusterId EAST_B = new ClusterId(EAST, "east-b");
    static final ClusterId WEST_A = new ClusterId(WEST, "west-a");

    /** The registry the gateway uses, and that {@link AdminServer}'s {@code /metrics} exposes. */
    static final MeterRegistry REGISTRY = Services.get(MeterRegistry.class);

    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final PrefixMemory prefixMemory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 0x5eedL);
    private final AtomicReference<Grid> grid = new AtomicReference<>(
            grid(cluster(EAST_A, OptionalInt.of(5), false), cluster(EAST_B, OptionalInt.empty(), false)));
    private final GatewayMetrics metrics;

    MetricsHarness() {
        prefixMemory.reconfigure(
                grid.get().clusters().stream().map(BackendCluster::id).collect(Collectors.toSet()),
                PrefixAffinitySettings.defaults());
        metrics = new GatewayMetrics(
                REGISTRY,
                new ClusterState(grid::get, new Admission(window, new OutlierEjector()), prefixMemory, clock));
    }

    GatewayMetrics metrics() {
        return metrics;
    }

    ManualClock clock() {
        return clock;
    }

    QueueDepthWindow window() {
        return window;
    }

    PrefixMemory prefixMemory() {
        return prefixMemory;
    }

    AtomicReference<Grid> grid() {
        return grid;
    }

    @Override
    public void close() {
        metrics.close();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    static Grid grid(BackendCluster... clusters) {
        return Grid.of(clusters[0].id().site(), List.of(clusters));
    }

    static BackendCluster cluster(ClusterId id, OptionalInt maxQueueDepth, boolean draining) {
        return new BackendCluster(
                id,
                URI.create("http://127.0.0.1:1/" + id.name()),
                Set.of("demo-model"),
                Optional.empty(),
                maxQueueDepth,
                draining);
    }
}
