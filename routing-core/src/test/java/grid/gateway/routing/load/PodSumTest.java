package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Summing a cluster's pods: depth and gauges over the pods that answered, counters by per-pod increments that never
 * go down when a pod restarts, fails a round or leaves, and the cache size kept for a pod that failed.
 */
class PodSumTest {
    private static final Set<String> TWO = Set.of("p1", "p2");

    private final PodSum sum = new PodSum();

    /** A pod's scrape: waiting, running, and one counter (finished requests) standing for all five. */
    private static EngineSample pod(double waiting, double running, double finished) {
        OptionalDouble f = OptionalDouble.of(finished);
        return new EngineSample(
                0, OptionalDouble.of(waiting), OptionalDouble.of(running), f, f, f, f, f, OptionalDouble.of(1_000));
    }

    @Test
    void round_sumsTheQueueDepthAndGaugesOverThePods() {
        EngineSample cluster = sum.round(Map.of("p1", pod(3, 8, 10), "p2", pod(4, 6, 20)), TWO, 7);

        assertThat(cluster.atNanos()).isEqualTo(7);
        assertThat(cluster.waiting()).hasValue(7);
        assertThat(cluster.running()).hasValue(14);
        assertThat(cluster.cacheTokens()).hasValue(2_000);
        assertThat(cluster.runningRequests())
                .as("first answers are the base: nothing grew yet")
                .hasValue(0);
    }

    @Test
    void round_aPodThatFailedIsLeftOutOfTheDepthButKeepsItsCache() {
        sum.round(Map.of("p1", pod(3, 8, 10), "p2", pod(4, 6, 20)), TWO, 1);

        EngineSample cluster = sum.round(Map.of("p2", pod(5, 6, 25)), TWO, 2);

        assertThat(cluster.waiting()).hasValue(5);
        assertThat(cluster.running()).hasValue(6);
        assertThat(cluster.cacheTokens())
                .as("the cache p1 reported is still there")
                .hasValue(2_000);
        assertThat(cluster.runningRequests()).hasValue(5);
    }

    @Test
    void round_noPodAnsweredGivesNoDepth() {
        sum.round(Map.of("p1", pod(3, 8, 10)), TWO, 1);

        EngineSample cluster = sum.round(Map.of(), TWO, 2);

        assertThat(cluster.waiting()).isEmpty();
        assertThat(cluster.running()).isEmpty();
        assertThat(cluster.runningRequests()).isEmpty();
    }

    @Test
    void round_aPodBackFromAFailedRoundAddsItsCatchUpOnce() {
        sum.round(Map.of("p1", pod(0, 0, 10), "p2", pod(0, 0, 20)), TWO, 1);
        sum.round(Map.of("p2", pod(0, 0, 24)), TWO, 2);

        EngineSample back = sum.round(Map.of("p1", pod(0, 0, 16), "p2", pod(0, 0, 27)), TWO, 3);

        // p2: 4 then 3; p1: 6 over both rounds. A sum of raw counters would have dropped by 10, then risen by 19.
        assertThat(back.runningRequests()).hasValue(13);
    }

    @Test
    void round_aRestartedPodNeverMakesTheClusterCounterGoDown() {
        sum.round(Map.of("p1", pod(0, 0, 500), "p2", pod(0, 0, 20)), TWO, 1);

        EngineSample restarted = sum.round(Map.of("p1", pod(0, 0, 3), "p2", pod(0, 0, 25)), TWO, 2);
        EngineSample after = sum.round(Map.of("p1", pod(0, 0, 9), "p2", pod(0, 0, 25)), TWO, 3);

        assertThat(restarted.runningRequests())
                .as("p1 restarted: its 3 are its new base")
                .hasValue(5);
        assertThat(after.runningRequests()).hasValue(11);
        assertThat(restarted.promptTokens().getAsDouble()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void round_aPodThatLeftIsForgottenAndStartsAnewIfItComesBack() {
        sum.round(Map.of("p1", pod(0, 0, 10), "p2", pod(0, 0, 20)), TWO, 1);
        EngineSample alone = sum.round(Map.of("p2", pod(0, 0, 21)), Set.of("p2"), 2);
        assertThat(alone.cacheTokens())
                .as("p1 left the cluster: its cache with it")
                .hasValue(1_000);

        EngineSample back = sum.round(Map.of("p1", pod(0, 0, 90), "p2", pod(0, 0, 22)), TWO, 3);

        assertThat(back.runningRequests())
                .as("p1's 90 is a new base, not 80 finished requests")
                .hasValue(2);
    }

    @Test
    void round_onePodReadsTheSameDeltasAsItsOwnCounters() {
        Calibration viaSum = new Calibration();
        Calibration direct = new Calibration();
        ClusterId id = new ClusterId(new SiteName("east"), "a");
        for (int scrape = 0; scrape < 8; scrape++) {
            EngineSample engine = new EngineSample(
                    scrape,
                    OptionalDouble.of(0),
                    OptionalDouble.of(4),
                    OptionalDouble.of(3_000.0 * 5 * scrape),
                    OptionalDouble.of(1_000.0 * 5 * scrape),
                    OptionalDouble.of(2.0 / 3 * 5 * scrape),
                    OptionalDouble.of(6.0 * 5 * scrape),
                    OptionalDouble.of(5.0 * scrape),
                    OptionalDouble.empty());
            direct.observe(id, engine);
            viaSum.observe(id, sum.round(Map.of("p1", engine), Set.of("p1"), scrape));
        }

        PrefixAffinitySettings settings =
                PrefixAffinitySettings.defaults().with(PrefixAffinitySettings.Calibrated.ALL, false);
        assertThat(viaSum.prices(id, settings)).isEqualTo(direct.prices(id, settings));
        assertThat(viaSum.prices(id, settings).measuredPrefill()).isTrue();
    }

    /** A pod's scrape with finished requests and prompt tokens set apart, the other counters absent. */
    private static EngineSample counts(double finished, OptionalDouble prompt) {
        OptionalDouble none = OptionalDouble.empty();
        return new EngineSample(
                0, OptionalDouble.of(0), none, prompt, none, none, none, OptionalDouble.of(finished), none);
    }

    @Test
    void round_aPodWhoseCountersWentDownInPart_restartedWhole_noCounterAddsAcrossTheRestart() {
        sum.round(Map.of("p1", counts(2, OptionalDouble.of(90_000))), Set.of("p1"), 1);

        // Restarted and served 5 requests: its tokens went down, its request count (2 before) only grew.
        EngineSample restarted = sum.round(Map.of("p1", counts(5, OptionalDouble.of(15_000))), Set.of("p1"), 2);
        EngineSample after = sum.round(Map.of("p1", counts(6, OptionalDouble.of(18_000))), Set.of("p1"), 3);

        assertThat(restarted.runningRequests()).hasValue(0);
        assertThat(restarted.promptTokens()).hasValue(0);
        assertThat(after.runningRequests()).hasValue(1);
        assertThat(after.promptTokens()).hasValue(3_000);
    }

    @Test
    void round_aSeriesMissingFromOnePage_addsItsCatchUpWhenItReturns() {
        sum.round(Map.of("p1", counts(10, OptionalDouble.of(30_000))), Set.of("p1"), 1);
        EngineSample without = sum.round(Map.of("p1", counts(11, OptionalDouble.empty())), Set.of("p1"), 2);

        EngineSample back = sum.round(Map.of("p1", counts(12, OptionalDouble.of(36_000))), Set.of("p1"), 3);

        assertThat(without.promptTokens()).isEmpty();
        assertThat(back.runningRequests()).hasValue(2);
        assertThat(back.promptTokens())
                .as("the tokens of both rounds, as the requests of both")
                .hasValue(6_000);
    }

    @Test
    void round_aTotalThatWouldPassItsBound_restartsEveryTotalFromZero() {
        sum.round(Map.of("p1", counts(10, OptionalDouble.of(30_000))), Set.of("p1"), 1);
        EngineSample grown = sum.round(Map.of("p1", counts(14, OptionalDouble.of(42_000))), Set.of("p1"), 2);

        EngineSample astronomical = sum.round(
                Map.of("p1", counts(15, OptionalDouble.of(PrometheusQueueParser.MAX_COUNT))), Set.of("p1"), 3);
        EngineSample after = sum.round(Map.of("p1", counts(16, OptionalDouble.of(48_000))), Set.of("p1"), 4);
        EngineSample next = sum.round(Map.of("p1", counts(17, OptionalDouble.of(51_000.25))), Set.of("p1"), 5);

        assertThat(grown.promptTokens()).hasValue(12_000);
        assertThat(astronomical.promptTokens())
                .as("every total restarts, which calibration reads as a restart")
                .hasValue(0);
        assertThat(astronomical.runningRequests()).hasValue(0);
        assertThat(after.promptTokens())
                .as("the pod's fall from 2^53 is its restart")
                .hasValue(0);
        assertThat(next.promptTokens()).as("later increments add exactly").hasValue(3_000.25);
    }

    @Test
    void round_aSilentPodCountsWithItsLatestReading_aPodThatIsDownIsForgotten() {
        Set<String> three = Set.of("p1", "p2", "p3");
        sum.round(Map.of("p1", pod(3, 8, 10), "p2", pod(40, 16, 20), "p3", pod(2, 4, 30)), three, 1);

        EngineSample silent = sum.round(Map.of("p1", pod(1, 8, 11), "p3", pod(2, 4, 31)), Set.of("p2"), three, 2);
        EngineSample down = sum.round(Map.of("p1", pod(1, 8, 12), "p3", pod(2, 4, 32)), Set.of(), three, 3);
        EngineSample silentAgain = sum.round(Map.of("p1", pod(1, 8, 13), "p3", pod(2, 4, 33)), Set.of("p2"), three, 4);

        assertThat(silent.waiting()).hasValue(43);
        assertThat(silent.running()).hasValue(28);
        assertThat(down.waiting()).hasValue(3);
        assertThat(silentAgain.waiting())
                .as("a reading from before the pod went down says nothing of it now")
                .hasValue(3);
    }
}
