package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixAffinitySettings.Calibrated;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * Calibration ({@code auto}): measured from an engine whose truth is known (prefill 3,000 tokens/s, 12 slots, 6 s
 * a request), configured while unmeasured, unmoved by one odd scrape, restarted by a counter reset.
 */
class CalibrationTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final PrefixAffinitySettings AUTO =
            PrefixAffinitySettings.defaults().with(Calibrated.ALL, false);

    private final Calibration calibration = new Calibration();

    /** A truthful engine: every request prefills 2,000 of its 3,000 tokens at 3,000 tokens/s and runs 6 s. */
    private static final class Engine {
        double prompt;
        double hits;
        double prefill;
        double runningSeconds;
        double finished;

        EngineSample serve(int requests, double prefillRate) {
            for (int i = 0; i < requests; i++) {
                prompt += 3_000;
                hits += 1_000;
                prefill += 2_000 / prefillRate;
                runningSeconds += 6;
                finished++;
            }
            return new EngineSample(
                    (long) finished,
                    OptionalDouble.of(0),
                    OptionalDouble.of(12),
                    OptionalDouble.of(prompt),
                    OptionalDouble.of(hits),
                    OptionalDouble.of(prefill),
                    OptionalDouble.of(runningSeconds),
                    OptionalDouble.of(finished),
                    OptionalDouble.of(16 * 18_000));
        }
    }

    @Test
    void prices_unmeasuredUseTheConfiguredNumbers() {
        ClusterPrices prices = calibration.prices(EAST_A, AUTO);

        assertThat(prices.prefillTokensPerSecond()).isEqualTo(10_000);
        assertThat(prices.queuedRequestSeconds()).isEqualTo(2);
        assertThat(prices.measuredPrefill()).isFalse();
    }

    @Test
    void prices_convergeToTheEnginesTruth() {
        Engine engine = new Engine();
        for (int scrape = 0; scrape < 6; scrape++) {
            calibration.observe(EAST_A, engine.serve(5, 3_000));
        }

        ClusterPrices prices = calibration.prices(EAST_A, AUTO);
        assertThat(prices.prefillTokensPerSecond()).isCloseTo(3_000, within(1e-6));
        // 6 s a request over 12 slots: a queued request waits half a second more.
        assertThat(prices.queuedRequestSeconds()).isCloseTo(0.5, within(1e-9));
        assertThat(prices.capacity()).hasValue(16 * 18_000 / 64);
        assertThat(prices.measuredPrefill()).isTrue();
    }

    @Test
    void prices_stayConfiguredUntilWarmAndWithoutAuto() {
        Engine engine = new Engine();
        calibration.observe(EAST_A, engine.serve(5, 3_000));
        calibration.observe(EAST_A, engine.serve(5, 3_000));
        calibration.observe(EAST_A, engine.serve(5, 3_000));

        assertThat(calibration.prices(EAST_A, AUTO).measuredPrefill())
                .as("two observations: not yet warm")
                .isFalse();
        calibration.observe(EAST_A, engine.serve(5, 3_000));
        assertThat(calibration.prices(EAST_A, AUTO).measuredPrefill()).isTrue();
        assertThat(calibration.prices(EAST_A, PrefixAffinitySettings.defaults()).prefillTokensPerSecond())
                .as("numbers written in the config are used as written")
                .isEqualTo(10_000);
    }

    @Test
    void prices_fewRequestsAccumulateBeforeAnObservation() {
        Engine engine = new Engine();
        calibration.observe(EAST_A, engine.serve(1, 3_000));
        for (int scrape = 0; scrape < 11; scrape++) {
            calibration.observe(EAST_A, engine.serve(1, 3_000));
        }

        // 11 requests after the base: two observations of four requests each, not yet three.
        assertThat(calibration.prices(EAST_A, AUTO).measuredPrefill()).isFalse();
        calibration.observe(EAST_A, engine.serve(1, 3_000));
        assertThat(calibration.prices(EAST_A, AUTO).prefillTokensPerSecond()).isCloseTo(3_000, within(1e-6));
    }

    @Test
    void prices_oneOddScrapeMovesTheEstimateByAtMostTwofold() {
        Engine engine = new Engine();
        for (int scrape = 0; scrape < 6; scrape++) {
            calibration.observe(EAST_A, engine.serve(5, 3_000));
        }
        calibration.observe(EAST_A, engine.serve(5, 3_000_000));

        double after = calibration.prices(EAST_A, AUTO).prefillTokensPerSecond();
        assertThat(after).isGreaterThan(3_000).isLessThanOrEqualTo(6_000 + 1e-6);
    }

    @Test
    void prices_aCounterResetRestartsWithoutAnObservation() {
        Engine engine = new Engine();
        for (int scrape = 0; scrape < 6; scrape++) {
            calibration.observe(EAST_A, engine.serve(5, 3_000));
        }
        Engine restarted = new Engine();
        calibration.observe(EAST_A, restarted.serve(5, 1));
        calibration.observe(EAST_A, restarted.serve(5, 3_000));

        assertThat(calibration.prices(EAST_A, AUTO).prefillTokensPerSecond())
                .as("the restart's deltas are not read as a rate")
                .isCloseTo(3_000, within(1e-6));
    }

    @Test
    void capacity_isBoundedBothWays() {
        calibration.observe(EAST_A, sampleWithCache(16));
        assertThat(calibration.capacity(EAST_A)).hasValue(ClusterCalibration.MIN_CAPACITY);
        calibration.observe(EAST_A, sampleWithCache(1e15));
        assertThat(calibration.capacity(EAST_A)).hasValue(ClusterCalibration.MAX_CAPACITY);
    }

    private static EngineSample sampleWithCache(double tokens) {
        OptionalDouble none = OptionalDouble.empty();
        return new EngineSample(0, none, none, none, none, none, none, none, OptionalDouble.of(tokens));
    }
}
