package grid.gateway.app.sharing;

import grid.gateway.app.observe.ClusterState;
import grid.gateway.app.observe.GatewayMetrics;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.service.registry.Services;
import java.time.Duration;
import java.util.List;

/**
 * The sharing meters of a gateway with an empty grid, for tests of the sharing threads. The registry is the process's,
 * so its counters are shared between tests: read them as differences.
 */
final class TestSharingMeters {
    private static final MeterRegistry REGISTRY = Services.get(MeterRegistry.class);

    private TestSharingMeters() {}

    static SharingMeters of(PrefixMemory memory, ManualClock clock) {
        return new GatewayMetrics(
                        REGISTRY,
                        new ClusterState(
                                () -> Grid.of(new SiteName("east"), List.of()),
                                new Admission(new QueueDepthWindow(Duration.ofSeconds(10)), new OutlierEjector()),
                                memory,
                                clock))
                .sharing();
    }
}
