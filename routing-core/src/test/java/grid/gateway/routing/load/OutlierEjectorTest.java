package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Outlier ejection (docs/design.md §6): 3 consecutive connect failures eject a cluster for 10 s. */
class OutlierEjectorTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "a");
    private static final ClusterId EAST_B = new ClusterId(new SiteName("east"), "b");

    private final ManualClock clock = new ManualClock();
    private final OutlierEjector ejector = new OutlierEjector();

    private void fail(ClusterId cluster, int times) {
        for (int i = 0; i < times; i++) {
            ejector.recordConnectFailure(cluster, clock.nanoTime());
        }
    }

    private boolean ejected(ClusterId cluster) {
        return ejector.isEjected(cluster, clock.nanoTime());
    }

    @Test
    void constants_namedAfterTheSpec() {
        assertThat(OutlierEjector.CONSECUTIVE_CONNECT_FAILURES).isEqualTo(3);
        assertThat(OutlierEjector.EJECTION_PERIOD).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void isEjected_neverFailed_false() {
        assertThat(ejected(EAST_A)).isFalse();
    }

    @Test
    void isEjected_twoConsecutiveFailures_false() {
        fail(EAST_A, 2);
        assertThat(ejected(EAST_A)).isFalse();
        assertThat(ejector.consecutiveFailures(EAST_A)).isEqualTo(2);
    }

    @Test
    void isEjected_threeConsecutiveFailures_true() {
        fail(EAST_A, 3);
        assertThat(ejected(EAST_A)).isTrue();
        assertThat(ejected(EAST_B)).isFalse();
    }

    @Test
    void recordSuccess_betweenFailures_restartsTheCount() {
        fail(EAST_A, 2);
        ejector.recordSuccess(EAST_A);
        fail(EAST_A, 2);
        assertThat(ejected(EAST_A)).isFalse();
        fail(EAST_A, 1);
        assertThat(ejected(EAST_A)).isTrue();
    }

    @Test
    void recordSuccess_unknownCluster_createsNoEntry() {
        ejector.recordSuccess(EAST_A);
        assertThat(ejector.trackedClusters()).isZero();
    }

    @Test
    void isEjected_failuresSpreadOverTime_stillConsecutive() {
        // The rule counts failures in a row, not failures per period.
        fail(EAST_A, 1);
        clock.advanceSeconds(30);
        fail(EAST_A, 1);
        clock.advanceSeconds(30);
        fail(EAST_A, 1);
        assertThat(ejected(EAST_A)).isTrue();
    }

    @Test
    void isEjected_oneNanosecondBeforeTenSeconds_stillEjected() {
        fail(EAST_A, 3);
        clock.advance(Duration.ofSeconds(10).minusNanos(1));
        assertThat(ejected(EAST_A)).isTrue();
    }

    @Test
    void isEjected_exactlyTenSecondsAfterEjection_admittedAgain() {
        fail(EAST_A, 3);
        clock.advanceSeconds(10);
        assertThat(ejected(EAST_A)).isFalse();
    }

    @Test
    void isEjected_acrossTheLongWrap_endsAfterTenSeconds() {
        // ManualClock starts 65 s before Long.MAX_VALUE: eject 5 s before the wrap, look on both sides of it.
        clock.advanceSeconds(60);
        fail(EAST_A, 3);
        clock.advanceSeconds(1);
        // Before the wrap, with the end of the ejection past it: a comparison of sums would call this admitted.
        assertThat(ejected(EAST_A)).isTrue();
        clock.advanceSeconds(8);
        assertThat(clock.nanoTime()).isNegative();
        assertThat(ejected(EAST_A)).isTrue();
        clock.advanceSeconds(1);
        assertThat(ejected(EAST_A)).isFalse();
    }

    @Test
    void recordConnectFailure_afterEjectionEnds_takesThreeMoreToEject() {
        fail(EAST_A, 3);
        clock.advanceSeconds(10);
        fail(EAST_A, 1);
        assertThat(ejected(EAST_A)).isFalse();
        fail(EAST_A, 1);
        assertThat(ejected(EAST_A)).isFalse();
        fail(EAST_A, 1);
        assertThat(ejected(EAST_A)).isTrue();
    }

    @Test
    void recordConnectFailure_duringEjection_neitherCountedNorExtending() {
        fail(EAST_A, 3);
        clock.advanceSeconds(9);
        fail(EAST_A, 5);
        assertThat(ejector.consecutiveFailures(EAST_A)).isZero();
        clock.advanceSeconds(1);
        assertThat(ejected(EAST_A)).isFalse();
        fail(EAST_A, 2);
        assertThat(ejected(EAST_A)).isFalse();
    }

    @Test
    void recordSuccess_duringEjection_doesNotEndIt() {
        fail(EAST_A, 3);
        clock.advanceSeconds(1);
        ejector.recordSuccess(EAST_A);
        assertThat(ejected(EAST_A)).isTrue();
    }

    @Test
    void isEjected_readingTakenJustBeforeTheEjection_ejected() {
        long before = clock.nanoTime();
        clock.advance(Duration.ofMillis(1));
        fail(EAST_A, 3);
        // A request that read the clock before another thread recorded the third failure is refused too.
        assertThat(ejector.isEjected(EAST_A, before)).isTrue();
    }

    @Test
    void retain_clusterLeftTheGrid_forgotten() {
        fail(EAST_A, 3);
        fail(EAST_B, 3);
        ejector.retain(Set.of(EAST_B));
        assertThat(ejector.trackedClusters()).isEqualTo(1);
        assertThat(ejected(EAST_A)).isFalse();
        assertThat(ejected(EAST_B)).isTrue();
    }

    @Test
    void recordConnectFailure_concurrentFailures_eachCountedOnce() throws Exception {
        // Two threads fail at the same moment, many times over: the count must be exactly 2 every time.
        CyclicBarrier barrier = new CyclicBarrier(2);
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            for (int round = 0; round < 500; round++) {
                ejector.recordSuccess(EAST_A);
                List<Future<?>> failing = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    failing.add(threads.submit(() -> {
                        barrier.await();
                        ejector.recordConnectFailure(EAST_A, clock.nanoTime());
                        return null;
                    }));
                }
                for (Future<?> done : failing) {
                    done.get();
                }
                assertThat(ejector.consecutiveFailures(EAST_A))
                        .as("round %d", round)
                        .isEqualTo(2);
            }
        }
    }
}
