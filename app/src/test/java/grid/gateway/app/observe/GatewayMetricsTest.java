package grid.gateway.app.observe;

import static grid.gateway.app.observe.MetricsHarness.EAST_A;
import static grid.gateway.app.observe.MetricsHarness.EAST_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.routing.PinnedOutcome;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.select.AffinityOutcome;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The counters and the latency histogram, read from the Prometheus text that the admin socket's {@code /metrics}
 * serves.
 */
class GatewayMetricsTest {
    @RegisterExtension
    static final ScrapedRegistry SERVER = new ScrapedRegistry();

    @RegisterExtension
    final MetricsHarness harness = new MetricsHarness();

    private final GatewayMetrics metrics = harness.metrics();

    @Test
    void scrape_noEvents_everyAffinityOutcomeSeriesAtZero() {
        Scrape scrape = SERVER.scrape();

        for (AffinityOutcome outcome : AffinityOutcome.values()) {
            assertThat(scrape.value("grid_route_prefix_affinity_total", "outcome", outcome.label()))
                    .as(outcome.label())
                    .contains(0.0);
        }
        assertThat(scrape.matching("grid_route_prefix_affinity_total", Map.of()))
                .hasSize(5);
    }

    @Test
    void scrape_noEvents_everyEnumLabelledCounterAtZero() {
        Scrape scrape = SERVER.scrape();

        for (PinnedOutcome outcome : PinnedOutcome.values()) {
            assertThat(scrape.value("grid_route_pinned_total", "outcome", outcome.label()))
                    .contains(0.0);
        }
        for (NoKeysReason reason : NoKeysReason.values()) {
            if (reason.counted()) {
                assertThat(scrape.value("grid_keyer_no_keys_total", "reason", reason.label()))
                        .contains(0.0);
            } else {
                // A body not keyed by choice (one_candidate) is not one the keyer could not read: no series.
                assertThat(scrape.value("grid_keyer_no_keys_total", "reason", reason.label()))
                        .isEmpty();
            }
        }
        assertThat(scrape.value("grid_config_reloads_total", "result", "applied"))
                .contains(0.0);
        assertThat(scrape.value("grid_config_reloads_total", "result", "refused"))
                .contains(0.0);
    }

    @Test
    void scrape_everyDeclaredMeter_exposedUnderItsSpecName() {
        metrics.upstreamAnswered(EAST_A, 200, Duration.ofMillis(20));
        metrics.requestsInFlight(() -> 3);
        metrics.inflightBodyBytes(() -> 4096);
        metrics.calibrationSeriesMissing(EAST_A, "vllm:request_inference_time_seconds_sum");
        metrics.edge().listener("client", () -> true);
        metrics.edge().clientConnectionsLimit(256);
        metrics.inflightAnswerBytes(() -> 2048);
        metrics.scrapePageBytes(() -> 1024);
        metrics.upstreamIdleConnectionBytes(() -> 8192);
        metrics.accessLogDropped(() -> 5);
        metrics.spansDropped(() -> 7);
        Scrape scrape = SERVER.scrape();

        for (GatewayMeter meter : GatewayMeter.values()) {
            String sampleName =
                    meter.type() == GatewayMeter.Type.TIMER ? meter.exposedName() + "_count" : meter.exposedName();
            assertThat(scrape.matching(sampleName, Map.of())).as(meter.name()).isNotEmpty();
            assertThat(scrape.matching(sampleName, Map.of()))
                    .allSatisfy(sample -> assertThat(sample.labels().keySet()).containsAll(meter.labels()));
        }
        assertThat(scrape.value("grid_requests_in_flight", Map.of())).contains(3.0);
        assertThat(scrape.value("grid_inflight_scrape_bytes", Map.of())).contains(1024.0);
        assertThat(scrape.value("grid_upstream_idle_connection_bytes", Map.of()))
                .contains(8192.0);
        assertThat(scrape.value("grid_access_log_dropped_total", Map.of())).contains(5.0);
        assertThat(scrape.text()).contains("# TYPE grid_access_log_dropped_total counter");
        assertThat(scrape.value("grid_trace_spans_dropped_total", Map.of())).contains(7.0);
        assertThat(scrape.text())
                .contains("# TYPE grid_route_prefix_affinity_total counter")
                .contains("# TYPE grid_upstream_latency_seconds histogram")
                .contains("# TYPE grid_cluster_queue_depth gauge");
    }

    @Test
    void scrape_openMetricsAsPrometheusNegotiatesIt_sameSampleNames() {
        metrics.affinityDecided(AffinityOutcome.LOAD, EAST_A, 12);
        metrics.upstreamAnswered(EAST_A, 200, Duration.ofMillis(20));

        // Prometheus asks for OpenMetrics first; the sample names (what PromQL sees) must not change.
        Scrape scrape = SERVER.scrape(
                "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.1");

        assertThat(scrape.text()).endsWith("# EOF\n");
        assertThat(scrape.value("grid_route_prefix_affinity_total", "outcome", "load"))
                .contains(1.0);
        assertThat(scrape.value("grid_upstream_requests_total", Map.of("cluster", "east/east-a", "status", "200")))
                .contains(1.0);
        assertThat(scrape.value("grid_upstream_latency_seconds_count", "cluster", "east/east-a"))
                .contains(1.0);
        assertThat(scrape.value("grid_cluster_queue_depth", "cluster", "east/east-a"))
                .hasValueSatisfying(depth -> assertThat(depth).isNaN());
    }

    @Test
    void affinityDecided_hitTwiceMissOnce_countsEachOutcome() {
        metrics.affinityDecided(AffinityOutcome.HIT, EAST_A, 40);
        metrics.affinityDecided(AffinityOutcome.HIT, EAST_B, 33);
        metrics.affinityDecided(AffinityOutcome.MISS, EAST_A, 0);

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.value("grid_route_prefix_affinity_total", "outcome", "hit"))
                .contains(2.0);
        assertThat(scrape.value("grid_route_prefix_affinity_total", "outcome", "miss"))
                .contains(1.0);
        assertThat(scrape.value("grid_route_prefix_affinity_total", "outcome", "load"))
                .contains(0.0);
    }

    @Test
    void pinned_eachOutcome_countsItsSeries() {
        metrics.pinned(PinnedOutcome.ROUTED);
        metrics.pinned(PinnedOutcome.ROUTED);
        metrics.pinned(PinnedOutcome.NOT_FOUND);
        metrics.pinned(PinnedOutcome.UNAVAILABLE);

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.value("grid_route_pinned_total", "outcome", "routed")).contains(2.0);
        assertThat(scrape.value("grid_route_pinned_total", "outcome", "not_found"))
                .contains(1.0);
        assertThat(scrape.value("grid_route_pinned_total", "outcome", "unavailable"))
                .contains(1.0);
    }

    @Test
    void upstreamAnswered_statusesAndLatencies_countedPerClusterAndExactStatus() {
        metrics.upstreamAnswered(EAST_A, 200, Duration.ofMillis(100));
        metrics.upstreamAnswered(EAST_A, 200, Duration.ofMillis(300));
        metrics.upstreamAnswered(EAST_A, 429, Duration.ofMillis(50));
        metrics.upstreamAnswered(EAST_B, 503, Duration.ofSeconds(2));

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.value("grid_upstream_requests_total", Map.of("cluster", "east/east-a", "status", "200")))
                .contains(2.0);
        assertThat(scrape.value("grid_upstream_requests_total", Map.of("cluster", "east/east-a", "status", "429")))
                .contains(1.0);
        assertThat(scrape.value("grid_upstream_requests_total", Map.of("cluster", "east/east-b", "status", "503")))
                .contains(1.0);
        assertThat(scrape.value("grid_upstream_latency_seconds_count", "cluster", "east/east-a"))
                .contains(3.0);
        assertThat(scrape.value("grid_upstream_latency_seconds_sum", "cluster", "east/east-a"))
                .hasValueSatisfying(sum -> assertThat(sum).isCloseTo(0.45, within(1e-9)));
        // 50 ms and 100 ms fall in the 0.1 s bucket (le is inclusive), 300 ms does not.
        assertThat(scrape.value("grid_upstream_latency_seconds_bucket", Map.of("cluster", "east/east-a", "le", "0.1")))
                .contains(2.0);
        assertThat(scrape.value("grid_upstream_latency_seconds_bucket", Map.of("cluster", "east/east-a", "le", "+Inf")))
                .contains(3.0);
        // A histogram only: no client-side quantiles, which replicas cannot aggregate.
        assertThat(scrape.samples()).noneMatch(s -> s.labels().containsKey("quantile"));
    }

    @Test
    void upstreamAnswered_statusOutsideHttpRange_labelledOther() {
        metrics.upstreamAnswered(EAST_A, 999, Duration.ofMillis(1));
        metrics.upstreamAnswered(EAST_A, 42, Duration.ofMillis(1));

        assertThat(SERVER.scrape()
                        .value("grid_upstream_requests_total", Map.of("cluster", "east/east-a", "status", "other")))
                .contains(2.0);
    }

    @Test
    void upstreamFailed_kinds_countedAndPreRegisteredAtZero() {
        metrics.upstreamFailed(EAST_B, UpstreamFailure.CONNECT);
        metrics.upstreamFailed(EAST_B, UpstreamFailure.CONNECT);
        metrics.upstreamFailed(EAST_B, UpstreamFailure.TIMEOUT);

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.value("grid_upstream_errors_total", Map.of("cluster", "east/east-b", "kind", "connect")))
                .contains(2.0);
        assertThat(scrape.value("grid_upstream_errors_total", Map.of("cluster", "east/east-b", "kind", "timeout")))
                .contains(1.0);
        assertThat(scrape.value("grid_upstream_errors_total", Map.of("cluster", "east/east-b", "kind", "reset")))
                .contains(0.0);
        assertThat(scrape.value("grid_upstream_errors_total", Map.of("cluster", "east/east-a", "kind", "other")))
                .contains(0.0);
    }

    @Test
    void cachedTokens_engineReported_countsPredictedAndReportedByOutcome() {
        metrics.cachedTokens(EAST_A, Optional.of(AffinityOutcome.HIT), 40 * 64, OptionalLong.of(2_432));
        metrics.cachedTokens(EAST_A, Optional.of(AffinityOutcome.HIT), 10 * 64, OptionalLong.of(0));
        metrics.cachedTokens(EAST_A, Optional.of(AffinityOutcome.MISS), 0, OptionalLong.of(16));

        Scrape scrape = SERVER.scrape();
        Map<String, String> hit = Map.of("cluster", "east/east-a", "outcome", "hit");
        assertThat(scrape.value("grid_prefix_cached_tokens_predicted_total", hit))
                .contains(3_200.0);
        assertThat(scrape.value("grid_prefix_cached_tokens_reported_total", hit))
                .contains(2_432.0);
        Map<String, String> miss = Map.of("cluster", "east/east-a", "outcome", "miss");
        assertThat(scrape.value("grid_prefix_cached_tokens_predicted_total", miss))
                .contains(0.0);
        assertThat(scrape.value("grid_prefix_cached_tokens_reported_total", miss))
                .contains(16.0);
    }

    @Test
    void cachedTokens_noAffinityDecision_labelledNone() {
        metrics.cachedTokens(EAST_B, Optional.empty(), 0, OptionalLong.of(512));

        assertThat(SERVER.scrape()
                        .value(
                                "grid_prefix_cached_tokens_reported_total",
                                Map.of("cluster", "east/east-b", "outcome", "none")))
                .contains(512.0);
    }

    @Test
    void cachedTokens_engineReportedNothing_countsNeither() {
        metrics.cachedTokens(EAST_A, Optional.of(AffinityOutcome.HIT), 4_096, OptionalLong.empty());

        Scrape scrape = SERVER.scrape();
        Map<String, String> hit = Map.of("cluster", "east/east-a", "outcome", "hit");
        assertThat(scrape.value("grid_prefix_cached_tokens_predicted_total", hit))
                .contains(0.0);
        assertThat(scrape.value("grid_prefix_cached_tokens_reported_total", hit))
                .contains(0.0);
    }

    @Test
    void noKeys_reason_countsItsSeries() {
        metrics.noKeys(NoKeysReason.TOKEN_PROMPT);
        metrics.noKeys(NoKeysReason.TOKEN_PROMPT);
        metrics.noKeys(NoKeysReason.INVALID_JSON);

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.value("grid_keyer_no_keys_total", "reason", "token_prompt"))
                .contains(2.0);
        assertThat(scrape.value("grid_keyer_no_keys_total", "reason", "invalid_json"))
                .contains(1.0);
        assertThat(scrape.value("grid_keyer_no_keys_total", "reason", "keyer_fault"))
                .contains(0.0);
    }

    @Test
    void reloads_appliedAndRefused_countedByResult() {
        metrics.reloadApplied();
        metrics.reloadRefused();
        metrics.reloadRefused();

        Scrape scrape = SERVER.scrape();
        assertThat(scrape.value("grid_config_reloads_total", "result", "applied"))
                .contains(1.0);
        assertThat(scrape.value("grid_config_reloads_total", "result", "refused"))
                .contains(2.0);
    }
}
