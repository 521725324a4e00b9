package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A listener's stop within deadlines, with stops held on latches. The preemptive bounds only fail a test; each wait
 * is ended by the deadline under test (or by a latch the test controls).
 */
class ListenerStopTest {
    private static final Duration FAILURE_BOUND = Duration.ofSeconds(10);
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void aStopThatNeverReturns_isCutThenLeftBehindAfterTheBound() {
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger cuts = new AtomicInteger();
        try {
            ListenerStop.Outcome outcome = assertTimeoutPreemptively(
                    FAILURE_BOUND,
                    () -> ListenerStop.stop(
                            "test",
                            () -> awaitQuietly(never),
                            Duration.ZERO,
                            () -> {
                                cuts.incrementAndGet();
                                return 3;
                            },
                            Duration.ofMillis(50)));

            assertThat(outcome).isEqualTo(new ListenerStop.Outcome(3, false));
            assertThat(cuts).hasValue(1);
        } finally {
            never.countDown();
        }
    }

    @Test
    void aStopThatEndsOnceCut_isWaitedFor() {
        CountDownLatch cut = new CountDownLatch(1);

        ListenerStop.Outcome outcome = assertTimeoutPreemptively(
                FAILURE_BOUND,
                () -> ListenerStop.stop(
                        "test",
                        () -> awaitQuietly(cut),
                        Duration.ZERO,
                        () -> {
                            cut.countDown();
                            return 2;
                        },
                        LONG));

        assertThat(outcome).isEqualTo(new ListenerStop.Outcome(2, true));
    }

    @Test
    void aStopThatReturnsWithinTheGrace_cutsNothing() {
        AtomicInteger cuts = new AtomicInteger();

        ListenerStop.Outcome outcome = assertTimeoutPreemptively(
                FAILURE_BOUND, () -> ListenerStop.stop("test", () -> {}, LONG, cuts::incrementAndGet, LONG));

        assertThat(outcome).isEqualTo(new ListenerStop.Outcome(0, true));
        assertThat(cuts).hasValue(0);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                // A stop that ignores interrupts, as a stuck connection thread does.
                latch.await(1, TimeUnit.HOURS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
