package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** Where calibration accumulates from when a scrape carried none of the engine series (an error page, a restart). */
class ClusterCalibrationBaseTest {
    private static final OptionalDouble NONE = OptionalDouble.empty();

    @Test
    void observe_firstScrapeWithoutSeries_laterScrapesStillMeasure() {
        ClusterCalibration calibration = new ClusterCalibration();
        calibration.observe(new EngineSample(0, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE));

        // Each step: 4 more requests, 4000 uncached prompt tokens in 1 s of prefill (4000 tokens a second).
        for (int step = 0; step <= ClusterCalibration.WARM_OBSERVATIONS; step++) {
            calibration.observe(sample(step));
        }

        assertThat(calibration.prefillTokensPerSecond()).hasValueCloseTo(4_000.0, within(1e-6));
    }

    private static EngineSample sample(int step) {
        return new EngineSample(
                step,
                OptionalDouble.of(0),
                OptionalDouble.of(1),
                OptionalDouble.of(4_000.0 * step),
                OptionalDouble.of(0),
                OptionalDouble.of(step),
                OptionalDouble.of(2.0 * step),
                OptionalDouble.of(4.0 * step),
                NONE);
    }
}
