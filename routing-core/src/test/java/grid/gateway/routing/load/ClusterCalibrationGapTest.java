package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * Scrapes that lack a series an estimate needs, between scrapes that have it: the estimate skips them and measures
 * from its base at the next scrape that has it, so light traffic, where an observation spans several scrapes, still
 * gets one.
 */
class ClusterCalibrationGapTest {
    private static final OptionalDouble NONE = OptionalDouble.empty();

    /** After {@code requests} requests of 2,000 tokens, 1,000 cached, prefilled at 4,000 tokens a second. */
    private static EngineSample sample(int requests, boolean withHits, boolean withInferenceTime) {
        return new EngineSample(
                requests,
                OptionalDouble.of(0),
                OptionalDouble.of(1),
                OptionalDouble.of(2_000.0 * requests),
                withHits ? OptionalDouble.of(1_000.0 * requests) : NONE,
                OptionalDouble.of(0.25 * requests),
                withInferenceTime ? OptionalDouble.of(3.0 * requests) : NONE,
                withInferenceTime ? OptionalDouble.of(requests) : NONE,
                NONE,
                NONE,
                OptionalDouble.of(requests));
    }

    @Test
    void observe_aSeriesMissingFromEveryOtherScrape_oneRequestAScrape_bothEstimatesMeasured() {
        ClusterCalibration calibration = new ClusterCalibration();
        for (int requests = 1; requests <= 40; requests++) {
            calibration.observe(sample(requests, requests % 2 == 0, requests % 3 != 0));
        }

        assertThat(calibration.prefillTokensPerSecond()).hasValueCloseTo(4_000.0, within(1e-6));
        assertThat(calibration.slotSeconds()).hasValueCloseTo(3.0, within(1e-9));
    }

    @Test
    void observe_aScrapeCarryingNothing_changesNeitherBaseNorWhatIsMissing() {
        ClusterCalibration calibration = new ClusterCalibration();
        for (int requests = 1; requests <= 40; requests++) {
            calibration.observe(sample(requests, true, true));
            calibration.observe(new EngineSample(requests, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE));
        }

        assertThat(calibration.prefillTokensPerSecond()).hasValueCloseTo(4_000.0, within(1e-6));
        assertThat(calibration.missing(true, true, false, false)).isEmpty();
    }
}
