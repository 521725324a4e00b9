package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.time.ManualClock;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Admission (docs/design.md §6): draining, max_queue_depth against the windowed worst queue depth, ejection. */
class AdmissionTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "a");

    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final OutlierEjector ejector = new OutlierEjector();
    private final Admission admission = new Admission(window, ejector);

    private static BackendCluster cluster(OptionalInt maxQueueDepth, boolean draining) {
        return new BackendCluster(
                EAST_A, URI.create("http://east-a:8000"), Set.of("m"), Optional.empty(), maxQueueDepth, draining);
    }

    private void queue(double depth) {
        window.record(EAST_A, new QueueSample(clock.nanoTime(), depth));
    }

    private boolean admits(BackendCluster cluster) {
        return admission.admits(cluster, clock.nanoTime());
    }

    /** Columns: draining, max_queue_depth (blank: none), windowed worst depth (blank: unmeasured), ejected. */
    @ParameterizedTest(name = "draining={0} max={1} worst={2} ejected={3} -> admits={4}")
    @CsvSource({
        "false,  ,    ,    false, true",
        "true,   ,    ,    false, false",
        "true,  5,   0,    false, false",
        "false,  ,    ,    true,  false",
        "false, 5,   1,    true,  false",
        "false, 5,   5,    false, false",
        "false, 5,   6,    false, false",
        "false, 5,   4,    false, true",
        "false, 5, 4.99,   false, true",
        "false, 5,    ,    false, true",
        "false,  , 1000,   false, true",
        "false, 0,   0,    false, false",
        "false, 0,    ,    false, true",
    })
    void admits_eachReason(
            boolean draining, Integer maxQueueDepth, Double worstDepth, boolean ejected, boolean expected) {
        if (worstDepth != null) {
            queue(worstDepth);
        }
        if (ejected) {
            for (int i = 0; i < OutlierEjector.CONSECUTIVE_CONNECT_FAILURES; i++) {
                ejector.recordConnectFailure(EAST_A, clock.nanoTime());
            }
        }
        OptionalInt max = maxQueueDepth == null ? OptionalInt.empty() : OptionalInt.of(maxQueueDepth);
        assertThat(admits(cluster(max, draining))).isEqualTo(expected);
    }

    @Test
    void admits_worstDepthAtMaxAgesOut_admittedAgain() {
        BackendCluster capped = cluster(OptionalInt.of(5), false);
        queue(5);
        clock.advanceSeconds(1);
        queue(4);
        clock.advanceSeconds(9);
        assertThat(admits(capped)).isFalse();
        clock.advanceSeconds(1);
        // The 5 aged out; the 4 taken a second later is the windowed worst.
        assertThat(admits(capped)).isTrue();
        clock.advanceSeconds(1);
        // Everything aged out: unmeasured, which max_queue_depth does not refuse.
        assertThat(admission.worstQueueDepth(EAST_A, clock.nanoTime())).isEmpty();
        assertThat(admits(capped)).isTrue();
    }

    @Test
    void admits_ejectionEnds_admittedAgain() {
        BackendCluster plain = cluster(OptionalInt.empty(), false);
        for (int i = 0; i < 3; i++) {
            ejector.recordConnectFailure(EAST_A, clock.nanoTime());
        }
        assertThat(admits(plain)).isFalse();
        clock.advanceSeconds(10);
        assertThat(admits(plain)).isTrue();
    }

    @Test
    void worstQueueDepth_passesThroughTheWindow() {
        queue(3);
        assertThat(admission.worstQueueDepth(EAST_A, clock.nanoTime())).hasValue(3.0);
        assertThat(admission.worstQueueDepth(new ClusterId(new SiteName("west"), "a"), clock.nanoTime()))
                .isEmpty();
    }
}
