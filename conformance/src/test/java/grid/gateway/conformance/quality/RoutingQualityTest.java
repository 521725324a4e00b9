package grid.gateway.conformance.quality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.enginesim.ApiSurface;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The routing-quality settings' conformance scenarios, in process on a manual clock with seed 1 and scrapes driven by the test: {@code
 * auto} calibration converges to the engine simulator's true prefill rate, and {@code learn_from_usage} stops a stale
 * cluster from staying sticky ({@code count_sent_since_scrape}: {@link InFlightQualityTest}). Each compares
 * against the gateway without the setting, where the behaviour is absent.
 */
class RoutingQualityTest {
    private static final String A = "cluster=\"east/a\"";
    private static final String PREFILL_GAUGE = "grid_cluster_prefill_tokens_per_second";

    @TempDir
    Path dir;

    private QualityGrid grid;

    @AfterEach
    void stop() {
        if (grid != null) {
            grid.close();
        }
    }

    @Test
    void prefillAuto_unmeasuredThenScraped_fallsBackThenConvergesToTheEnginesTrueRate() {
        grid = new QualityGrid(dir);
        EngineSimulator engine = grid.engine("a", EngineSettings.builder().prefillTokensPerSecond(3_000));
        grid.startGateway("", "prefill_tokens_per_second: auto, queued_request_seconds: auto");
        double truth = engine.settings().prefillTokensPerSecond();

        // Unmeasured: the seed's default stands in.
        assertThat(grid.gateway.metric(PREFILL_GAUGE, A)).isEqualTo(10_000);
        for (int round = 1; round <= 5; round++) {
            for (int i = 0; i < 4; i++) {
                assertThat(grid.chat(QualityGrid.prompt("round " + round + " request " + i, 2_000), false))
                        .isEqualTo(200);
            }
            grid.gateway.clock.advanceSeconds(1);
            grid.gateway.server.scrapeNow();
            if (round < 3) {
                // Fewer observations than calibration trusts: still the fallback.
                assertThat(grid.gateway.metric(PREFILL_GAUGE, A))
                        .as("round " + round)
                        .isEqualTo(10_000);
            }
        }

        assertThat(grid.gateway.metric(PREFILL_GAUGE, A)).isCloseTo(truth, within(0.2 * truth));
        // No scrape of an instant engine sees a request running (vllm:num_requests_running), so its slots, and with
        // them the queued-request cost, stay unmeasured: the fallback stands.
        assertThat(grid.gateway.metric("grid_cluster_queued_request_seconds", A))
                .isEqualTo(2);
    }

    @Test
    void prefillConfigured_sameTraffic_staysAtTheConfiguredNumber() {
        grid = new QualityGrid(dir);
        grid.engine("a", EngineSettings.builder().prefillTokensPerSecond(3_000));
        grid.startGateway("", "");
        for (int i = 0; i < 20; i++) {
            grid.chat(QualityGrid.prompt("request " + i, 2_000), false);
            grid.gateway.clock.advanceSeconds(1);
            grid.gateway.server.scrapeNow();
        }

        assertThat(grid.gateway.metric(PREFILL_GAUGE, A)).isEqualTo(10_000);
    }

    @Test
    void learnFromUsage_engineFlushedItsCache_staleConversationNoLongerSticky() {
        StaleProbe probe = staleConversation("learn_from_usage: true");

        // The lesson (P reported 0 cached tokens where 40 blocks were believed) says a loses what is older than
        // ~30 s, so Q (131 s old) no longer counts there: a miss with nothing predicted.
        assertThat(probe.hits()).isZero();
        assertThat(probe.misses()).isEqualTo(1);
        assertThat(probe.predicted()).isZero();
        assertThat(probe.reported()).isZero();
    }

    @Test
    void learnFromUsage_vllmNullForZero_engineFlushedItsCache_staleConversationNoLongerSticky() {
        StaleProbe probe = staleConversation("learn_from_usage: true", true);

        // a reported a count on Chat Completions once (Q's second turn), so its null for P is a report of 0.
        assertThat(probe.hits()).isZero();
        assertThat(probe.misses()).isEqualTo(1);
        assertThat(probe.predicted()).isZero();
        assertThat(probe.reported()).isZero();
    }

    @Test
    void learnFromUsageOff_engineFlushedItsCache_staleConversationStaysSticky() {
        StaleProbe probe = staleConversation("");

        assertThat(probe.hits()).isEqualTo(1);
        assertThat(probe.misses()).isZero();
        assertThat(probe.predicted()).isPositive();
        assertThat(probe.reported()).isZero();
    }

    /** What the gateway did with the stale conversation Q: affinity outcomes and cached tokens at a (deltas). */
    private record StaleProbe(double hits, double misses, double predicted, double reported) {}

    /**
     * Conversation Q at t=0 and P at t=100 s go to a (b is busier); a's engine then flushes its prefix cache; P again at
     * t=130 s (streamed) reports 0 cached tokens for what the gateway believed a held; Q again at t=131 s is probed.
     */
    private StaleProbe staleConversation(String prefixAffinity) {
        return staleConversation(prefixAffinity, false);
    }

    /**
     * {@link #staleConversation(String)} on engines that say "0 cached tokens" out loud, as OpenAI's API does, or with
     * {@code vllm} on vLLM-like engines that say nothing for 0 (and Q is sent a second time at t=1 s, so that a has
     * reported a count once).
     */
    private StaleProbe staleConversation(String prefixAffinity, boolean vllm) {
        grid = new QualityGrid(dir);
        EngineSettings.Builder settings = EngineSettings.builder();
        EngineSimulator a = grid.engine("a", vllm ? settings : settings.api(ApiSurface::withZeroCachedTokensReported));
        EngineSimulator b = grid.engine(
                "b",
                vllm
                        ? EngineSettings.builder()
                        : EngineSettings.builder().api(ApiSurface::withZeroCachedTokensReported));
        grid.startGateway("", prefixAffinity);
        a.setQueueDepth(0);
        b.setQueueDepth(3);
        grid.gateway.server.scrapeNow();
        String q = QualityGrid.prompt("conversation Q", 10_240);
        String p = QualityGrid.prompt("conversation P", 10_240);

        assertThat(grid.chat(q, false)).isEqualTo(200);
        if (vllm) {
            grid.gateway.clock.advanceSeconds(1);
            assertThat(grid.chat(q, false)).isEqualTo(200);
        }
        int sent = vllm ? 3 : 2;
        grid.gateway.clock.advanceSeconds(100);
        assertThat(grid.chat(p, true)).isEqualTo(200);
        assertThat(a.requestCount()).isEqualTo(sent);
        a.resetPrefixCache();
        grid.gateway.clock.advanceSeconds(30);
        assertThat(grid.chat(p, true)).isEqualTo(200);
        grid.gateway.clock.advanceSeconds(1);

        double hits = grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"hit\"");
        double misses = grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"miss\"");
        double predicted = cachedTokens("predicted");
        double reported = cachedTokens("reported");
        assertThat(grid.chat(q, false)).isEqualTo(200);
        assertThat(a.requestCount()).isEqualTo(sent + 2);
        return new StaleProbe(
                grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"hit\"") - hits,
                grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"miss\"") - misses,
                cachedTokens("predicted") - predicted,
                cachedTokens("reported") - reported);
    }

    /** Cached tokens at a over every outcome. */
    private double cachedTokens(String which) {
        double sum = 0;
        for (String outcome : new String[] {"hit", "load", "miss", "explore", "unkeyed", "none"}) {
            sum += grid.gateway.metric(
                    "grid_prefix_cached_tokens_" + which + "_total", A + ",outcome=\"" + outcome + "\"");
        }
        return sum;
    }

    // --- the light-load sequential multi-turn replay (SequentialReplay)

    /** Gateways seeded 1 to 3: which cluster first gets each system prompt is a draw, and it moves hit rates. */
    private static final long[] SEEDS = {1, 2, 3};
    /**
     * How far below the defaults' hit rate a configuration may fall: 2 points. Paired by seed, configurations that
     * place the same reproduce each other's hit rate to the last digit; the rest differ by where the four prompt
     * groups land on three clusters, which moves one seed's hit rate by up to 13 points either way.
     */
    private static final double NOISE = 0.02;

    private static final SequentialReplay REPLAY = new SequentialReplay(96, settings -> settings);

    @Test
    void sequentialReplay_recommendedAndEachRecommendedSettingAlone_keepTheDefaultsHitRate_neverLeaveForLoad() {
        SequentialReplay.Result defaults = REPLAY.meanThroughGateway(dir, "", "", SEEDS);

        for (var config : ReplayTable.configurations().entrySet()) {
            SequentialReplay.Result result =
                    REPLAY.meanThroughGateway(dir, config.getValue()[0], config.getValue()[1], SEEDS);
            assertThat(result.hitRate()).as(config.getKey()).isGreaterThanOrEqualTo(defaults.hitRate() - NOISE);
            // Light load: nothing ever waits, so no request leaves the cluster that holds its prefix.
            assertThat(result.outcome("load")).as(config.getKey()).isZero();
        }
    }

    @Test
    void sequentialReplay_vllmNullForZero_learnFromUsageKeepsTheHitRateWithoutIt_andReadsNullAsZero() {
        SequentialReplay zeroOutLoud =
                new SequentialReplay(96, settings -> settings.api(ApiSurface::withZeroCachedTokensReported));
        for (long seed : SEEDS) {
            double without = REPLAY.throughGateway(dir, "", "", seed).hitRate();
            double with = REPLAY.throughGateway(dir, "", "learn_from_usage: true", seed)
                    .hitRate();
            double heard = zeroOutLoud
                    .throughGateway(dir, "", "learn_from_usage: true", seed)
                    .hitRate();

            assertThat(with).as("seed " + seed).isGreaterThanOrEqualTo(without - NOISE);
            // vLLM writes null for 0 once it has reported a count: the gateway learns exactly what it would from an
            // engine that says 0 out loud.
            assertThat(with).as("seed " + seed).isEqualTo(heard);
        }
    }
}
