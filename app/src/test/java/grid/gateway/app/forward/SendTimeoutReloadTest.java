package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reload that changes {@code server.send_timeout_ms} while an answer is being relayed (applied live): the answer's
 * alarm decides on the timeout in force when it looks, not on the one of the answer's start, so a slow reader of a
 * stream begun before a reload that lengthened the timeout is not cut by the shorter one, and one that takes nothing
 * is cut by the relay itself once a shortened timeout ran out. Driven by a manual clock; every check is the test's.
 */
class SendTimeoutReloadTest {
    private static final Duration IDLE_TIMEOUT = Duration.ofHours(1);

    private final ManualClock clock = new ManualClock();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final AtomicReference<Duration> sendTimeout = new AtomicReference<>(Duration.ofMinutes(1));
    private final AtomicInteger cut = new AtomicInteger();

    SendTimeoutReloadTest() {
        scheduler.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** An alarm watching the client with the send timeout in force ({@link #sendTimeout}), the client telling nothing. */
    private IdleAlarm watched() {
        IdleAlarm alarm = IdleAlarm.arm(scheduler, clock, IDLE_TIMEOUT, () -> {});
        alarm.client(new SendDeadline(sendTimeout::get, ClientProgress.NONE, () -> {}), cut::incrementAndGet);
        return alarm;
    }

    @Test
    void timeoutLengthenedWhileAWriteIsBlocked_notCutAtTheShorterOne() throws IOException {
        IdleAlarm alarm = watched();
        AtomicLong next = new AtomicLong();

        alarm.clientWrite(() -> {
            sendTimeout.set(Duration.ofMinutes(10)); // the reload
            clock.advance(Duration.ofMinutes(9));
            next.set(alarm.check());
        });

        assertThat(cut).hasValue(0);
        assertThat(next).hasValue(Duration.ofMinutes(1).toNanos());
    }

    @Test
    void timeoutLengthenedBeforeTheNextWrite_thatWriteTimedByTheLongerOne() throws IOException {
        IdleAlarm alarm = watched();
        sendTimeout.set(Duration.ofMinutes(10));

        alarm.clientWrite(() -> {
            clock.advance(Duration.ofMinutes(5));
            alarm.check();
        });

        assertThat(cut).hasValue(0);
    }

    @Test
    void timeoutShortenedWhileAWriteIsBlocked_cutOnceTheShorterOneRanOut() throws IOException {
        IdleAlarm alarm = watched();
        AtomicLong next = new AtomicLong();

        alarm.clientWrite(() -> {
            sendTimeout.set(Duration.ofSeconds(10)); // the reload
            clock.advance(Duration.ofSeconds(10));
            next.set(alarm.check());
        });

        assertThat(next).hasValue(-1);
        assertThat(cut).hasValue(1);
        assertThat(alarm.stalled()).isTrue();
    }
}
