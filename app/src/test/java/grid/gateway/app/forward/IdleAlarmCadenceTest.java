package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the alarm looks next: one alarm watches both sides of an exchange, one operation at a time, and an operation
 * only stamps its start, so a check made while one side waits must come back soon enough for whatever the other side
 * begins next. Driven by a manual clock; every check is one the test makes, at the wait the check before returned, as
 * the alarm's scheduler would.
 */
class IdleAlarmCadenceTest {
    private final ManualClock clock = new ManualClock();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final AtomicInteger fired = new AtomicInteger();
    private final AtomicInteger cut = new AtomicInteger();

    IdleAlarmCadenceTest() {
        scheduler.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** Runs the checks the scheduler would run from a wait of {@code first} on; returns the time they took. */
    private Duration checksFrom(IdleAlarm alarm, long first) {
        long waited = 0;
        for (long wait = first; wait >= 0; wait = alarm.check()) {
            clock.advance(Duration.ofNanos(wait));
            waited += wait;
        }
        return Duration.ofNanos(waited);
    }

    @Test
    void engineSilentAfterAWriteToASlowClient_cutAtTheIdleTimeout_notAtTheNextLookAtTheClient() throws IOException {
        IdleAlarm alarm = IdleAlarm.arm(scheduler, clock, Duration.ofSeconds(1), fired::incrementAndGet);
        alarm.client(new SendDeadline(Duration.ofMinutes(1), ClientProgress.NONE, () -> {}), cut::incrementAndGet);
        AtomicLong next = new AtomicLong();
        // A check lands while a write to a slow client is blocked, 100 ms into it; the write then returns.
        alarm.clientWrite(() -> {
            clock.advance(Duration.ofMillis(100));
            next.set(alarm.check());
        });
        AtomicLong silence = new AtomicLong();

        // The engine then says nothing.
        alarm.read(
                IdleAlarmHandOverTest.readThat(
                        () -> silence.set(checksFrom(alarm, next.get()).toNanos())),
                new byte[1]);

        assertThat(fired).hasValue(1);
        assertThat(Duration.ofNanos(silence.get()))
                .as("how long the engine was silent when the alarm ended the answer")
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(cut).hasValue(0);
    }

    @Test
    void clientTakingNothingAfterALongRead_cutOneSendTimeoutAfterAFirstLookAQuarterIntoTheWrite() throws IOException {
        IdleAlarm alarm = IdleAlarm.arm(scheduler, clock, Duration.ofHours(1), fired::incrementAndGet);
        alarm.client(
                new SendDeadline(Duration.ofMinutes(1), fresh -> OptionalLong.of(4 << 20), () -> {}),
                cut::incrementAndGet);
        AtomicLong next = new AtomicLong();
        // A check lands as a read of the engine begins; the engine answers a moment later.
        alarm.read(IdleAlarmHandOverTest.readThat(() -> next.set(alarm.check())), new byte[1]);
        AtomicLong blocked = new AtomicLong();

        // A write to a client that takes nothing then blocks.
        alarm.clientWrite(() -> blocked.set(checksFrom(alarm, next.get()).toNanos()));

        assertThat(cut).hasValue(1);
        assertThat(Duration.ofNanos(blocked.get()))
                .as("how long the write had waited when the client was cut")
                .isEqualTo(Duration.ofSeconds(75));
        assertThat(fired).hasValue(0);
    }

    @Test
    void clientTakingNothingAfterANoOperationCheck_cutOneSendTimeoutAfterAFirstLookAQuarterIntoTheWrite()
            throws IOException {
        IdleAlarm alarm = IdleAlarm.arm(scheduler, clock, Duration.ofHours(1), fired::incrementAndGet);
        alarm.client(
                new SendDeadline(Duration.ofMinutes(1), fresh -> OptionalLong.of(4 << 20), () -> {}),
                cut::incrementAndGet);
        // A check lands between two operations (the relay tagging, counting); a write that blocks follows at once.
        long next = alarm.check();
        AtomicLong blocked = new AtomicLong();

        alarm.clientWrite(() -> blocked.set(checksFrom(alarm, next).toNanos()));

        assertThat(cut).hasValue(1);
        assertThat(Duration.ofNanos(blocked.get())).isEqualTo(Duration.ofSeconds(75));
    }
}
