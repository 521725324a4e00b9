package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.load.QueueScraper.Outcome;
import grid.gateway.routing.LoadRules;
import grid.gateway.routing.RoutingListener;
import grid.gateway.routing.RoutingParts;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.EngineSeriesParser;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixAffinitySettings.Calibrated;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Engine counters that report oddly, served on real loopback sockets, against the prefill rate {@code auto} measures:
 * an engine that restarts while one of its counters was still small, a counter that reads an astronomical number once,
 * a series that is missing from every other page, and a page with no engine series at all between true ones. The
 * rate never takes a wrong observation from them, never freezes, and a missing series is told once.
 */
class QueueScraperOddCountersTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");
    /** The rate the engine prefills at, in uncached tokens a second. */
    private static final double RATE = 4_000;

    private final FakeEngines engines = new FakeEngines();
    private final ManualClock clock = new ManualClock();
    private final List<String> told = new CopyOnWriteArrayList<>();
    private final Grid grid = Grid.of(
            EAST,
            List.of(new BackendCluster(
                    A, engines.base("a"), Set.of("demo-model"), Optional.empty(), OptionalInt.empty(), false)));
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final SiteRouter router = new SiteRouter(
            grid,
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            new RoutingParts(
                    new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1),
                    new QueueDepthWindow(Duration.ofSeconds(2)),
                    new OutlierEjector(),
                    new SplittableRandom(1),
                    clock,
                    new RoutingListener() {
                        @Override
                        public void calibrationSeriesMissing(ClusterId cluster, String series) {
                            told.add(series);
                        }
                    }));
    private final QueueScraper scraper = new QueueScraper(() -> grid, LoadSettings::defaults, router, clock, scheduler);

    /** A vLLM engine's counters: each request has {@code prompt} tokens, {@code hit} of them cached. */
    private static final class Engine {
        double prompt;
        double hits;
        double prefillSeconds;
        double finished;

        void serve(int requests, double promptTokens, double hitTokens) {
            prompt += requests * promptTokens;
            hits += requests * hitTokens;
            prefillSeconds += requests * (promptTokens - hitTokens) / RATE;
            finished += requests;
        }

        void restart() {
            prompt = 0;
            hits = 0;
            prefillSeconds = 0;
            finished = 0;
        }

        String page() {
            return page(prefillSeconds, true);
        }

        String page(double prefillSum, boolean withHits) {
            return "vllm:num_requests_waiting{engine=\"0\"} 0\n"
                    + String.format(Locale.ROOT, "vllm:prompt_tokens_total{engine=\"0\"} %.1f%n", prompt)
                    + (withHits
                            ? String.format(Locale.ROOT, "vllm:prefix_cache_hits_total{engine=\"0\"} %.1f%n", hits)
                            : "")
                    + String.format(
                            Locale.ROOT, "vllm:request_prefill_time_seconds_sum{engine=\"0\"} %.6f%n", prefillSum)
                    + String.format(
                            Locale.ROOT,
                            "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\"} %.1f%n",
                            finished);
        }
    }

    private final Engine engine = new Engine();

    @AfterEach
    void stop() {
        scraper.close();
        scheduler.shutdownNow();
        engines.close();
    }

    private void autoInForce() {
        router.reconfigure(
                grid,
                PrefixAffinitySettings.defaults().with(Calibrated.ALL, false),
                TagKeyRing.none(),
                new LoadRules(false, LoadOrder.DEPTH));
    }

    private Outcome round(String page) {
        engines.answer("a", page);
        clock.advance(Duration.ofSeconds(1));
        return scraper.pollNow().get(A).join();
    }

    private double prefillRate() {
        return router.prices(A).prefillTokensPerSecond();
    }

    @Test
    void anEngineRestartingWhileItsHitCounterWasSmall_givesNoObservationMixingBeforeAndAfter() {
        autoInForce();
        for (int r = 0; r < 8; r++) {
            engine.serve(5, 3_000, 0);
            round(engine.page());
        }
        assertThat(prefillRate()).isCloseTo(RATE, within(1.0));

        // The engine restarts and serves requests that hit its cache: its prompt tokens, prefill seconds and
        // successes start from 0 again, but its hits (0 before) only grew.
        engine.restart();
        engine.serve(5, 3_000, 1_000);
        round(engine.page());
        engine.serve(5, 3_000, 1_000);
        round(engine.page());

        assertThat(prefillRate())
                .as("the round of the restart is a new base for every counter of the engine, not for some")
                .isCloseTo(RATE, within(1.0));
    }

    @Test
    void aCounterReadingAnAstronomicalNumberOnce_neitherSkewsNorFreezesTheRate() {
        autoInForce();
        for (int r = 0; r < 8; r++) {
            engine.serve(5, 3_000, 1_000);
            round(engine.page());
        }
        engine.serve(5, 3_000, 1_000);
        round(engine.page(0x1p53, true));
        // Light load from now on: one request a round, 0.25 s of prefill each.
        for (int r = 0; r < 40; r++) {
            engine.serve(1, 2_000, 1_000);
            round(engine.page());
        }

        assertThat(prefillRate()).isCloseTo(RATE, within(RATE * 0.01));
    }

    @Test
    void aSeriesMissingFromEveryOtherPage_atLightLoad_theRateIsStillMeasured_andToldOnce() {
        autoInForce();
        for (int r = 0; r < 40; r++) {
            engine.serve(1, 2_000, 1_000);
            round(engine.page(engine.prefillSeconds, r % 2 == 0));
        }

        assertThat(router.prices(A).measuredPrefill()).isTrue();
        assertThat(prefillRate()).isCloseTo(RATE, within(1.0));
        assertThat(told)
                .as("the flapping series is told once, not at each page that lacks it")
                .containsOnlyOnce(EngineSeriesParser.CACHE_HITS);
    }

    @Test
    void aPageWithNoEngineSeriesBetweenTrueOnes_teachesNothing_andTellsNoSeriesMissing() {
        autoInForce();
        for (int r = 0; r < 40; r++) {
            engine.serve(1, 2_000, 1_000);
            assertThat(round(engine.page())).isEqualTo(Outcome.SAMPLED);
            assertThat(round("# a placeholder page, no engine series on it\n")).isEqualTo(Outcome.NO_QUEUE_METRIC);
        }

        assertThat(prefillRate()).isCloseTo(RATE, within(1.0));
        assertThat(told)
                .as("only what the true pages lack: the queued cost's and the capacity's series")
                .doesNotContain(
                        EngineSeriesParser.PROMPT_TOKENS,
                        EngineSeriesParser.CACHE_HITS,
                        EngineSeriesParser.PREFILL_SECONDS,
                        EngineSeriesParser.PREFILL_REQUESTS)
                .doesNotHaveDuplicates();
        assertThat(router.missingSeries(A)).doesNotContain(EngineSeriesParser.PROMPT_TOKENS);
    }
}
