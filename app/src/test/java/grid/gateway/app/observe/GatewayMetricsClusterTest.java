package grid.gateway.app.observe;

import static grid.gateway.app.observe.MetricsHarness.EAST_A;
import static grid.gateway.app.observe.MetricsHarness.EAST_B;
import static grid.gateway.app.observe.MetricsHarness.WEST_A;
import static grid.gateway.app.observe.MetricsHarness.cluster;
import static grid.gateway.app.observe.MetricsHarness.grid;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.load.QueueSample;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The per-cluster gauges and how every per-cluster series follows the grid, read from the Prometheus text that the
 * admin socket's {@code /metrics} serves.
 */
class GatewayMetricsClusterTest {
    @RegisterExtension
    static final ScrapedRegistry SERVER = new ScrapedRegistry();

    @RegisterExtension
    final MetricsHarness harness = new MetricsHarness();

    private final GatewayMetrics metrics = harness.metrics();
    private final ManualClock clock = harness.clock();
    private final QueueDepthWindow window = harness.window();
    private final PrefixMemory prefixMemory = harness.prefixMemory();
    private final AtomicReference<Grid> grid = harness.grid();

    @Test
    void gauges_measuredAndUnmeasuredClusters_readAtScrapeTime() {
        window.record(EAST_A, new QueueSample(clock.nanoTime(), 3));
        clock.advanceSeconds(1);
        window.record(EAST_A, new QueueSample(clock.nanoTime(), 2));
        prefixMemory.confirm(EAST_A, BlockKeys.copyOf(new long[] {11, 12, 13}, 3));

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.value("grid_cluster_queue_depth", "cluster", "east/east-a"))
                .contains(3.0);
        assertThat(scrape.value("grid_cluster_queue_depth", "cluster", "east/east-b"))
                .hasValueSatisfying(depth -> assertThat(depth).isNaN());
        assertThat(scrape.value("grid_cluster_admitted", "cluster", "east/east-a"))
                .contains(1.0);
        assertThat(scrape.value("grid_cluster_admitted", "cluster", "east/east-b"))
                .contains(1.0);
        assertThat(scrape.value("grid_prefix_index_entries", "cluster", "east/east-a"))
                .contains(3.0);
        assertThat(scrape.value("grid_prefix_index_entries", "cluster", "east/east-b"))
                .contains(0.0);
    }

    @Test
    void gauges_queueAtMaxDepthThenWindowEmpties_admittedZeroThenOneAndDepthNaN() {
        window.record(EAST_A, new QueueSample(clock.nanoTime(), 5));

        Scrape full = SERVER.scrape();
        assertThat(full.value("grid_cluster_queue_depth", "cluster", "east/east-a"))
                .contains(5.0);
        assertThat(full.value("grid_cluster_admitted", "cluster", "east/east-a"))
                .contains(0.0);

        clock.advanceSeconds(11);
        Scrape aged = SERVER.scrape();
        assertThat(aged.value("grid_cluster_queue_depth", "cluster", "east/east-a"))
                .hasValueSatisfying(depth -> assertThat(depth).isNaN());
        assertThat(aged.value("grid_cluster_admitted", "cluster", "east/east-a"))
                .contains(1.0);
    }

    @Test
    void gauges_clusterDrainingAfterReload_admittedZero() {
        grid.set(grid(cluster(EAST_A, OptionalInt.of(5), true), cluster(EAST_B, OptionalInt.empty(), false)));
        metrics.reloadApplied();

        assertThat(SERVER.scrape().value("grid_cluster_admitted", "cluster", "east/east-a"))
                .contains(0.0);
    }

    @Test
    void reloadApplied_clusterRemovedAndOneAdded_removedSeriesDisappearAddedAppear() {
        metrics.upstreamAnswered(EAST_B, 200, Duration.ofMillis(5));
        metrics.upstreamFailed(EAST_B, UpstreamFailure.RESET);
        assertThat(SERVER.scrape().withLabel("cluster", "east/east-b")).isNotEmpty();

        grid.set(grid(cluster(EAST_A, OptionalInt.empty(), false), cluster(WEST_A, OptionalInt.empty(), false)));
        metrics.reloadApplied();

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.withLabel("cluster", "east/east-b")).isEmpty();
        assertThat(names(scrape.withLabel("cluster", "west/west-a")))
                .contains(
                        "grid_cluster_queue_depth",
                        "grid_cluster_admitted",
                        "grid_prefix_index_entries",
                        "grid_upstream_errors_total",
                        "grid_upstream_latency_seconds_count");
        assertThat(scrape.value("grid_cluster_admitted", "cluster", "east/east-a"))
                .contains(1.0);
    }

    @Test
    void upstreamAnswered_clusterNoLongerInGrid_countsNothing() {
        grid.set(grid(cluster(EAST_A, OptionalInt.empty(), false)));
        metrics.reloadApplied();

        metrics.upstreamAnswered(EAST_B, 200, Duration.ofMillis(5));
        metrics.cachedTokens(EAST_B, Optional.empty(), 0, OptionalLong.of(64));

        assertThat(SERVER.scrape().withLabel("cluster", "east/east-b")).isEmpty();
    }

    @Test
    void upstreamAnswered_clusterInGridBeforeSync_syncsAndCounts() {
        grid.set(grid(cluster(EAST_A, OptionalInt.empty(), false), cluster(WEST_A, OptionalInt.empty(), false)));

        metrics.upstreamAnswered(WEST_A, 200, Duration.ofMillis(5));

        assertThat(SERVER.scrape()
                        .value("grid_upstream_requests_total", Map.of("cluster", "west/west-a", "status", "200")))
                .contains(1.0);
    }

    @Test
    void close_afterEvents_removesEverySeriesItRegistered() {
        metrics.affinityDecided(AffinityOutcome.HIT, EAST_A, 40);
        metrics.upstreamAnswered(EAST_A, 200, Duration.ofMillis(5));

        metrics.close();

        Scrape scrape = SERVER.scrape();
        for (GatewayMeter meter : GatewayMeter.values()) {
            assertThat(scrape.samples()).noneMatch(s -> s.name().startsWith(meter.exposedName()));
        }
    }

    private static Set<String> names(List<Scrape.Sample> samples) {
        return samples.stream().map(Scrape.Sample::name).collect(Collectors.toSet());
    }
}
