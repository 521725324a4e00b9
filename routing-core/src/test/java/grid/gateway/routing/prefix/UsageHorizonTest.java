package grid.gateway.routing.prefix;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** UsageHorizon: kept and evicted witnesses by age, the horizon where evictions outnumber what was kept. */
class UsageHorizonTest {
    private static final long SECOND = 1_000_000_000L;

    /** Evidence of {@code blocks} blocks all confirmed {@code ageSeconds} before the routing. */
    private static RunEvidence evidence(int blocks, long ageSeconds) {
        long[] at = new long[blocks];
        java.util.Arrays.fill(at, 0);
        return new RunEvidence(ageSeconds * SECOND, at);
    }

    @Test
    void noLessonNoHorizon() {
        assertThat(new UsageHorizon().nanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void oneEvictionSetsAHorizonAtItsBucket() {
        UsageHorizon horizon = new UsageHorizon();
        assertThat(horizon.learn(evidence(40, 100), 0)).isEqualTo(64 * SECOND);
    }

    @Test
    void reportsWithinTheTokenEstimatesSlackTeachNothing() {
        UsageHorizon horizon = new UsageHorizon();
        // 40 blocks predicted, 50% reported: between the 30% and 60% marks.
        assertThat(horizon.learn(evidence(40, 100), 40 * 64 / 2)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void oneOddEvictionCannotCutWhatManyKeptReportsSupport() {
        UsageHorizon horizon = new UsageHorizon();
        for (int i = 0; i < 5; i++) {
            horizon.learn(evidence(40, 300), 40 * 64);
        }
        assertThat(horizon.learn(evidence(40, 100), 0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void evictionsOfOldEntries_keptYoungOnes_horizonBetween() {
        UsageHorizon horizon = new UsageHorizon();
        for (int i = 0; i < 10; i++) {
            horizon.learn(evidence(40, 10), 40 * 64);
            horizon.learn(evidence(40, 200), 64);
        }
        assertThat(horizon.nanos()).isEqualTo(128 * SECOND);
    }

    @Test
    void keptReportsAtGreaterAgesRaiseItAgain() {
        UsageHorizon horizon = new UsageHorizon();
        horizon.learn(evidence(40, 100), 0);
        horizon.learn(evidence(40, 200), 40 * 64);
        horizon.learn(evidence(40, 200), 40 * 64);
        assertThat(horizon.nanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void buckets() {
        assertThat(UsageHorizon.bucket(0)).isZero();
        assertThat(UsageHorizon.bucket(1_999_999_999L)).isZero();
        assertThat(UsageHorizon.bucket(2 * SECOND)).isEqualTo(1);
        assertThat(UsageHorizon.bucket(127 * SECOND)).isEqualTo(6);
        assertThat(UsageHorizon.bucket(Long.MAX_VALUE)).isEqualTo(UsageHorizon.BUCKETS - 1);
        assertThat(UsageHorizon.bucket(-5)).isZero();
    }
}
