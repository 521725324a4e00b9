package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixAffinitySettings.Calibrated;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Each {@code auto} estimate from the series it needs: an engine that exports only some of vLLM's series loses only
 * the estimates that need the others, and says which; the slots are the operator's where set, and a learned slot
 * count is the batch limit only once a line showed the batch full.
 */
class CalibrationSeriesTest {
    private static final ClusterId A = new ClusterId(new SiteName("east"), "a");
    private static final PrefixAffinitySettings AUTO =
            PrefixAffinitySettings.defaults().with(Calibrated.ALL, false);

    private final Calibration calibration = new Calibration();

    /** Which series an engine exports. */
    private enum Exports {
        /** Prompt tokens, hits, prefill time (sum and count), successes; no inference time, no running gauge. */
        PREFILL_AND_SUCCESS,
        /** Prompt tokens, hits, prefill time sum, successes: the prefill time's count missing too. */
        SUCCESS_ONLY_COUNT,
        /** Prompt tokens, hits, prefill time sum, and no count series at all. */
        NO_COUNT,
        /** Prompt tokens, prefill time and its count, but no prefix-cache hits. */
        NO_HITS
    }

    /** A truthful engine: each request prefills 2,000 of its 3,000 tokens at 3,000 tokens/s. */
    private static final class Engine {
        private final Exports exports;
        double prompt;
        double hits;
        double prefill;
        double finished;

        Engine(Exports exports) {
            this.exports = exports;
        }

        EngineSample serve(int requests) {
            for (int i = 0; i < requests; i++) {
                prompt += 3_000;
                hits += 1_000;
                prefill += 2_000 / 3_000.0;
                finished++;
            }
            OptionalDouble none = OptionalDouble.empty();
            boolean prefillCount = exports == Exports.PREFILL_AND_SUCCESS || exports == Exports.NO_HITS;
            boolean success = exports == Exports.PREFILL_AND_SUCCESS || exports == Exports.SUCCESS_ONLY_COUNT;
            return new EngineSample(
                    (long) finished,
                    OptionalDouble.of(0),
                    none,
                    OptionalDouble.of(prompt),
                    exports == Exports.NO_HITS ? none : OptionalDouble.of(hits),
                    OptionalDouble.of(prefill),
                    none,
                    none,
                    none,
                    prefillCount ? OptionalDouble.of(finished) : none,
                    success ? OptionalDouble.of(finished) : none);
        }
    }

    private void serve(Engine engine, int scrapes) {
        for (int scrape = 0; scrape < scrapes; scrape++) {
            calibration.observe(A, engine.serve(5));
        }
    }

    @Test
    void prefill_withoutInferenceTimeSeries_isStillCalibrated() {
        serve(new Engine(Exports.PREFILL_AND_SUCCESS), 6);

        ClusterPrices prices = calibration.prices(A, AUTO);
        assertThat(prices.measuredPrefill()).isTrue();
        assertThat(prices.prefillTokensPerSecond()).isCloseTo(3_000, within(1e-6));
        // The queued-request cost needs the inference time histogram: it stays configured.
        assertThat(prices.measuredQueued()).isFalse();
        assertThat(prices.queuedRequestSeconds()).isEqualTo(2);
        assertThat(calibration.missing(A, AUTO, false))
                .containsExactlyInAnyOrder(
                        EngineSeriesParser.RUNNING_SECONDS,
                        EngineSeriesParser.RUNNING_REQUESTS,
                        EngineSeriesParser.RUNNING,
                        EngineSeriesParser.CACHE_CONFIG);
    }

    @Test
    void prefill_countedFromRequestSuccessWhenThePrefillHistogramHasNoCount() {
        serve(new Engine(Exports.SUCCESS_ONLY_COUNT), 6);

        assertThat(calibration.prices(A, AUTO).prefillTokensPerSecond()).isCloseTo(3_000, within(1e-6));
        assertThat(calibration.missing(A, AUTO, true)).doesNotContain(EngineSeriesParser.PREFILL_REQUESTS);
    }

    @Test
    void prefill_withoutAnyCountSeries_staysConfiguredAndSaysWhichIsMissing() {
        serve(new Engine(Exports.NO_COUNT), 6);

        assertThat(calibration.prices(A, AUTO).measuredPrefill()).isFalse();
        assertThat(calibration.missing(A, AUTO, true)).contains(EngineSeriesParser.PREFILL_REQUESTS);
    }

    @Test
    void prefill_withoutCacheHits_staysConfigured() {
        serve(new Engine(Exports.NO_HITS), 6);

        assertThat(calibration.prices(A, AUTO).measuredPrefill()).isFalse();
        assertThat(calibration.missing(A, AUTO, true)).contains(EngineSeriesParser.CACHE_HITS);
    }

    @Test
    void missing_onlyWhatTheAutoEstimatesInForceNeed() {
        serve(new Engine(Exports.NO_COUNT), 2);

        assertThat(calibration.missing(A, PrefixAffinitySettings.defaults(), false))
                .isEmpty();
        assertThat(calibration.missing(
                        A, PrefixAffinitySettings.defaults().with(new Calibrated(true, false, false), false), false))
                .containsExactly(EngineSeriesParser.CACHE_CONFIG);
    }

    private EngineSample batch(double waiting, double running) {
        OptionalDouble none = OptionalDouble.empty();
        return new EngineSample(
                0, OptionalDouble.of(waiting), OptionalDouble.of(running), none, none, none, none, none, none);
    }

    @Test
    void occupancy_theMostSeenRunning_isNotTheBatchLimitUntilALineWaits() {
        calibration.observe(A, batch(0, 1));
        calibration.observe(A, batch(0, 0));

        Occupancy idle = calibration.occupancy(A).orElseThrow();
        assertThat(idle.known()).isFalse();
        assertThat(idle.queued(20))
                .as("twenty in flight never queue at unknown slots")
                .isZero();

        calibration.observe(A, batch(3, 8));
        Occupancy full = calibration.occupancy(A).orElseThrow();
        assertThat(full.known()).isTrue();
        assertThat(full.slots()).isEqualTo(8);
        assertThat(full.queued(2)).isEqualTo(2);
    }

    @Test
    void occupancy_aLineBelowTheMostSeenRunning_showsNoSaturation() {
        calibration.observe(A, batch(0, 4));
        // A request caught between its arrival and the engine's next step, while fewer run than ever ran.
        calibration.observe(A, batch(1, 2));

        assertThat(calibration.occupancy(A).orElseThrow().known()).isFalse();
    }

    @Test
    void occupancy_theOperatorsMaxRunningIsKnownAtOnce() {
        calibration.observe(A, batch(0, 1));

        Occupancy configured = calibration.occupancy(A).orElseThrow().withConfigured(OptionalInt.of(4));
        assertThat(configured.known()).isTrue();
        assertThat(configured.free()).isEqualTo(3);
        assertThat(configured.queued(5)).isEqualTo(2);
        assertThat(Occupancy.unreported(OptionalInt.of(4)).free()).isEqualTo(4);
        assertThat(Occupancy.unreported(OptionalInt.empty()).queued(9)).isZero();
    }

    @Test
    void queuedCost_dividesTheSlotTimeByTheOperatorsSlotsWhereSet() {
        for (int i = 0; i <= 20; i++) {
            OptionalDouble none = OptionalDouble.empty();
            calibration.observe(
                    A,
                    new EngineSample(
                            i,
                            OptionalDouble.of(0),
                            OptionalDouble.of(2),
                            none,
                            none,
                            none,
                            OptionalDouble.of(i * 4 * 6.0),
                            OptionalDouble.of(i * 4.0),
                            none));
        }

        // 6 s a request: over the 2 seen running 3 s, over the operator's 12 half a second.
        assertThat(calibration.prices(A, AUTO).queuedRequestSeconds()).isCloseTo(3, within(1e-9));
        assertThat(calibration.prices(A, AUTO, OptionalInt.of(12)).queuedRequestSeconds())
                .isCloseTo(0.5, within(1e-9));
    }
}
