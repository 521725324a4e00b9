package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.time.ManualClock;
import io.helidon.http.WritableHeaders;
import io.helidon.webserver.CloseConnectionException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The header deadline on a manual clock: who is interrupted, when, and what a late header block meets. */
class HeaderDeadlineTest {
    private final ManualClock clock = new ManualClock();
    private final AtomicInteger expired = new AtomicInteger();
    private final HeaderDeadline deadline = new HeaderDeadline(clock, Duration.ofSeconds(10), expired::incrementAndGet);

    @Test
    void headersInTime_nothingInterrupted() {
        deadline.prologue(null, null);
        clock.advance(Duration.ofSeconds(10));
        deadline.sweep();
        deadline.headers(null, WritableHeaders.create());
        assertThat(Thread.interrupted()).isFalse();
        assertThat(expired).hasValue(0);
        assertThat(deadline.inProgress()).isZero();
    }

    @Test
    void overdue_threadInterruptedOnce_lateHeadersCloseTheConnection() throws InterruptedException {
        CountDownLatch registered = new CountDownLatch(1);
        CountDownLatch swept = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean closed = new AtomicBoolean();
        Thread connection = Thread.ofVirtual().start(() -> {
            deadline.prologue(null, null);
            registered.countDown();
            try {
                swept.await();
            } catch (InterruptedException e) {
                interrupted.set(true); // what a blocked channel read sees: the interrupt closes the socket
            }
            try {
                deadline.headers(null, WritableHeaders.create());
            } catch (CloseConnectionException e) {
                closed.set(true);
            }
        });
        assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();
        clock.advance(Duration.ofMillis(10_001));
        deadline.sweep();
        deadline.sweep(); // a second sweep finds nothing more to do
        connection.join(10_000);
        assertThat(interrupted).isTrue();
        assertThat(closed).isTrue();
        assertThat(expired).hasValue(1);
        assertThat(deadline.inProgress()).isZero();
    }

    @Test
    void sweepPeriod_aQuarterOfTheTimeoutWithinBounds() {
        assertThat(deadline.sweepPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(new HeaderDeadline(clock, Duration.ofMillis(400), () -> {}).sweepPeriod())
                .isEqualTo(Duration.ofMillis(100));
        assertThat(new HeaderDeadline(clock, Duration.ofMillis(10), () -> {}).sweepPeriod())
                .isEqualTo(Duration.ofMillis(50));
        assertThatThrownBy(() -> new HeaderDeadline(clock, null, () -> {})).isInstanceOf(NullPointerException.class);
    }
}
