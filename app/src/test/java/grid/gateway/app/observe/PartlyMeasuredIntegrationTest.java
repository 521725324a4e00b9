package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster of two engine-simulator pods listed in {@code metrics_urls}, the real gateway scraping them over
 * loopback sockets: while one pod's {@code /metrics} fails, the cluster is partly measured (gauge 1) and its depth is
 * the other pod's; once both answer, the depth is their sum and the gauge 0.
 */
class PartlyMeasuredIntegrationTest {
    private static final String CLUSTER = "east/east-a";

    @TempDir
    Path dir;

    private EngineSimulator first;
    private EngineSimulator second;
    private GatewayHarness gateway;

    @BeforeEach
    void startPods() {
        first = GatewayHarness.engine("east-a-0");
        second = GatewayHarness.engine("east-a-1");
        first.setQueueDepth(3);
        second.setQueueDepth(5);
    }

    /** Starts the gateway once the pods fail as the test wants: its first round runs at once, on its own thread. */
    private void startGateway() {
        gateway = new GatewayHarness(
                dir, GatewayHarness.config("", """
                          - name: east
                            clusters:
                              - name: east-a
                                url: %s
                                models: [demo-model]
                                metrics_urls: [%s/metrics, %s/metrics]
                        """.formatted(first.url(), first.url(), second.url())), first, second);
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        } else {
            first.close();
            second.close();
        }
    }

    private Scrape scrape() {
        gateway.server.scrapeNow();
        return Scrape.parse(gateway.metrics());
    }

    @Test
    void onePodFailing_partlyMeasuredAndTheDepthIsTheOtherPods() {
        first.failScrapes(true);
        startGateway();

        Scrape scrape = scrape();

        assertThat(scrape.value("grid_cluster_partly_measured", "cluster", CLUSTER))
                .hasValue(1.0);
        assertThat(scrape.value("grid_cluster_queue_depth", "cluster", CLUSTER)).hasValue(5.0);
        assertThat(scrape.value("grid_cluster_pods", Map.of("cluster", CLUSTER, "state", "measured")))
                .hasValue(1.0);
        assertThat(scrape.value("grid_cluster_pods", Map.of("cluster", CLUSTER, "state", "unmeasured")))
                .hasValue(1.0);
        assertThat(first.metricsScrapeCount()).as("the failing pod was asked").isPositive();
    }

    @Test
    void bothPodsAnswering_theDepthIsTheSumAndNotPartly() {
        startGateway();

        Scrape scrape = scrape();

        assertThat(scrape.value("grid_cluster_partly_measured", "cluster", CLUSTER))
                .hasValue(0.0);
        assertThat(scrape.value("grid_cluster_queue_depth", "cluster", CLUSTER)).hasValue(8.0);
        assertThat(scrape.value("grid_cluster_pods", Map.of("cluster", CLUSTER, "state", "measured")))
                .hasValue(2.0);
    }

    @Test
    void bothPodsFailing_unmeasuredAndNotPartly() {
        first.failScrapes(true);
        second.failScrapes(true);
        startGateway();

        Scrape scrape = scrape();

        assertThat(scrape.value("grid_cluster_partly_measured", "cluster", CLUSTER))
                .hasValue(0.0);
        assertThat(scrape.value("grid_cluster_queue_depth", "cluster", CLUSTER).orElseThrow())
                .isNaN();
        assertThat(scrape.value("grid_cluster_pods", Map.of("cluster", CLUSTER, "state", "unmeasured")))
                .hasValue(2.0);
    }
}
