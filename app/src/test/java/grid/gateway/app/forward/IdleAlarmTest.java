package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The alarm's decisions, driven by a manual clock: the scheduler is real but its checks are due in an hour, so every
 * check in these tests is one the test makes itself.
 */
class IdleAlarmTest {
    private static final Duration TIMEOUT = Duration.ofHours(1);

    private final ManualClock clock = new ManualClock();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final AtomicInteger fired = new AtomicInteger();

    IdleAlarmTest() {
        scheduler.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private IdleAlarm arm() {
        return IdleAlarm.arm(scheduler, clock, TIMEOUT, fired::incrementAndGet);
    }

    /** A stream whose one read lets the clock run {@code waited} and then asks the alarm to check. */
    private static InputStream waitingRead(ManualClock clock, Duration waited, LongSupplier check, AtomicLong seen) {
        return IdleAlarmHandOverTest.readThat(() -> {
            clock.advance(waited);
            seen.set(check.getAsLong());
        });
    }

    @Test
    void check_noReadInProgress_rearmsForTheWholeTimeout() {
        IdleAlarm alarm = arm();
        clock.advance(TIMEOUT.multipliedBy(3));

        // Time outside reads (writing to a slow client) is not upstream silence.
        assertThat(alarm.check()).isEqualTo(TIMEOUT.toNanos());
        assertThat(fired).hasValue(0);
    }

    @Test
    void check_readWaitingLessThanTheTimeout_rearmsForTheRest() throws IOException {
        IdleAlarm alarm = arm();
        AtomicLong next = new AtomicLong();

        alarm.read(waitingRead(clock, Duration.ofMinutes(20), alarm::check, next), new byte[1]);

        assertThat(next).hasValue(Duration.ofMinutes(40).toNanos());
        assertThat(fired).hasValue(0);
    }

    @Test
    void check_readWaitingTheWholeTimeout_fires() throws IOException {
        IdleAlarm alarm = arm();
        AtomicLong next = new AtomicLong();

        alarm.read(waitingRead(clock, TIMEOUT, alarm::check, next), new byte[1]);

        assertThat(next).hasValue(-1);
        assertThat(fired).hasValue(1);
    }

    @Test
    void check_silenceSpreadOverTwoReads_doesNotFire() throws IOException {
        IdleAlarm alarm = arm();
        AtomicLong next = new AtomicLong();
        alarm.read(waitingRead(clock, Duration.ofMinutes(50), () -> 0, next), new byte[1]);

        // Each read waited less than the timeout; together they waited more.
        alarm.read(waitingRead(clock, Duration.ofMinutes(50), alarm::check, next), new byte[1]);

        assertThat(next).hasValue(Duration.ofMinutes(10).toNanos());
        assertThat(fired).hasValue(0);
    }

    @Test
    void close_cancelsThePendingCheckAndStopsRearming() {
        IdleAlarm alarm = arm();
        assertThat(scheduler.getQueue()).hasSize(1);

        alarm.close();

        assertThat(scheduler.getQueue()).isEmpty();
        assertThat(alarm.check()).isEqualTo(-1);
        assertThat(scheduler.getQueue()).isEmpty();
        assertThat(fired).hasValue(0);
    }

    @Test
    void arm_manyAnswersClosed_leaveNothingQueued() throws IOException {
        for (int i = 0; i < 1_000; i++) {
            try (IdleAlarm alarm = arm()) {
                alarm.read(waitingRead(clock, Duration.ofMillis(1), () -> 0, new AtomicLong()), new byte[1]);
            }
        }

        // One alarm per answer, removed when the answer ends: a steady load queues nothing.
        assertThat(scheduler.getQueue()).isEmpty();
    }

    @Test
    void check_clientWriteWaitingTheSendTimeout_cutsTheClientNotTheUpstream() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        alarm.client(new SendDeadline(Duration.ofMinutes(1), ClientProgress.NONE, () -> {}), cut::incrementAndGet);
        AtomicLong next = new AtomicLong();

        alarm.clientWrite(() -> {
            clock.advance(Duration.ofMinutes(1));
            next.set(alarm.check());
        });

        assertThat(next).hasValue(-1);
        assertThat(cut).hasValue(1);
        assertThat(fired).hasValue(0);
        assertThat(alarm.stalled()).isTrue();
        assertThat(alarm.fired()).isFalse();
    }

    @Test
    void check_clientWriteWaitingLessThanTheSendTimeout_rearmsForTheRest() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        alarm.client(new SendDeadline(Duration.ofMinutes(1), ClientProgress.NONE, () -> {}), cut::incrementAndGet);
        AtomicLong next = new AtomicLong();

        alarm.clientWrite(() -> {
            clock.advance(Duration.ofSeconds(45));
            next.set(alarm.check());
        });

        assertThat(next).hasValue(Duration.ofSeconds(15).toNanos());
        assertThat(cut).hasValue(0);
    }

    @Test
    void check_upstreamReadLongerThanTheSendTimeout_isNoClientStall() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        alarm.client(new SendDeadline(Duration.ofMinutes(1), ClientProgress.NONE, () -> {}), cut::incrementAndGet);
        AtomicLong next = new AtomicLong();

        // An engine silent for 20 minutes is within its idle timeout (an hour), whatever the send timeout; the next
        // check comes a quarter of the send timeout later, in time for a write that may follow the read.
        alarm.read(waitingRead(clock, Duration.ofMinutes(20), alarm::check, next), new byte[1]);

        assertThat(next).hasValue(Duration.ofSeconds(15).toNanos());
        assertThat(cut).hasValue(0);
        assertThat(fired).hasValue(0);
    }

    @Test
    void check_slowClientWritesEachWithinTheSendTimeout_neverCut() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        alarm.client(new SendDeadline(Duration.ofMinutes(1), ClientProgress.NONE, () -> {}), cut::incrementAndGet);

        // Ten writes of 50 s each: 500 s for the answer, but never 60 s for one write (nginx's send_timeout).
        for (int i = 0; i < 10; i++) {
            alarm.clientWrite(() -> {
                clock.advance(Duration.ofSeconds(50));
                alarm.check();
            });
        }

        assertThat(cut).hasValue(0);
    }

    @Test
    void check_noOperationInProgress_rearmsForTheFirstLookAWriteBeginningNowWouldNeed() {
        IdleAlarm alarm = arm();
        alarm.client(new SendDeadline(Duration.ofMinutes(1), ClientProgress.NONE, () -> {}), () -> {});

        // A quarter of the send timeout: the first look at a write is due a quarter into it (IdleAlarmCadenceTest).
        assertThat(alarm.check()).isEqualTo(Duration.ofSeconds(15).toNanos());
    }

    /**
     * Runs one client write that stays blocked while the alarm checks as its scheduler would (each check at the wait
     * the last one returned), {@code between} running before each check; returns how long the write waited when it
     * was cut, or when {@code most} checks ran.
     */
    private Duration blockedWrite(IdleAlarm alarm, int most, Runnable between) throws IOException {
        AtomicLong waited = new AtomicLong();
        alarm.clientWrite(() -> {
            long wait = alarm.check();
            for (int i = 0; i < most && wait >= 0; i++) {
                clock.advance(Duration.ofNanos(wait));
                waited.addAndGet(wait);
                between.run();
                wait = alarm.check();
            }
        });
        return Duration.ofNanos(waited.get());
    }

    @Test
    void check_blockedWriteClientTakingNothing_cutOneSendTimeoutAfterTheFirstLook() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        AtomicLong unacknowledged = new AtomicLong(4 << 20);
        List<Long> asked = new ArrayList<>();
        alarm.client(
                new SendDeadline(
                        Duration.ofMinutes(1),
                        fresh -> {
                            asked.add(fresh);
                            return OptionalLong.of(unacknowledged.get());
                        },
                        () -> {}),
                cut::incrementAndGet);

        Duration waited = blockedWrite(alarm, 100, () -> {});

        assertThat(cut).hasValue(1);
        // A reading may serve other connections' looks, but never one as old as the 15 s between two looks; the cut
        // is decided on a reading of now.
        assertThat(asked).hasSize(6);
        assertThat(asked.subList(0, 5))
                .allMatch(fresh -> fresh == Duration.ofMillis(1875).toNanos());
        assertThat(asked.get(5)).isZero();
        // The kernel is first asked a quarter into the write; the client took nothing from then on.
        assertThat(waited).isEqualTo(Duration.ofSeconds(75));
        assertThat(alarm.stalled()).isTrue();
    }

    @Test
    void check_clientTookBytesAfterTheSharedReading_notCut() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        // The kernel's count now, and the latest reading of the listener's rows, which other connections' looks
        // share for up to an eighth of a quarter of the timeout; a reading of now becomes the shared one.
        AtomicLong kernel = new AtomicLong(4 << 20);
        AtomicLong shared = new AtomicLong(kernel.get());
        alarm.client(
                new SendDeadline(
                        Duration.ofMinutes(1),
                        fresh -> {
                            if (fresh == 0) {
                                shared.set(kernel.get());
                            }
                            return OptionalLong.of(shared.get());
                        },
                        () -> {}),
                cut::incrementAndGet);
        AtomicLong checks = new AtomicLong();

        // Looks at 15, 30, 45, 60 and 75 s: the client takes nothing until just before the look at 75 s, which the
        // shared reading, made a moment earlier, does not show.
        Duration waited = blockedWrite(alarm, 6, () -> {
            if (checks.incrementAndGet() == 5) {
                kernel.addAndGet(-64 * 1024);
            }
        });

        assertThat(cut).as("a client that took bytes within the send timeout").hasValue(0);
        assertThat(waited).isEqualTo(Duration.ofSeconds(90));
    }

    /** Watches {@code alarm}'s client writes under a one-minute send timeout, the kernel telling {@code unacknowledged}. */
    private static void watchClient(IdleAlarm alarm, AtomicLong unacknowledged, AtomicInteger cut) {
        alarm.client(
                new SendDeadline(Duration.ofMinutes(1), fresh -> OptionalLong.of(unacknowledged.get()), () -> {}),
                cut::incrementAndGet);
    }

    @Test
    void check_oneWriteBlockedForAnHour_clientTakingBytes_neverCut() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        AtomicLong unacknowledged = new AtomicLong(4 << 20);
        watchClient(alarm, unacknowledged, cut);

        // The kernel wakes a blocked writer only once a third of the send buffer is free: one write can wait long
        // while the client steadily takes bytes.
        Duration waited = blockedWrite(alarm, 240, () -> unacknowledged.addAndGet(-16 * 1024));

        assertThat(cut).hasValue(0);
        assertThat(waited).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void check_clientTakingBytesInBurstsJustInsideTheTimeout_neverCut() throws IOException {
        IdleAlarm alarm = arm();
        AtomicInteger cut = new AtomicInteger();
        AtomicLong unacknowledged = new AtomicLong(4 << 20);
        watchClient(alarm, unacknowledged, cut);
        AtomicLong checks = new AtomicLong();

        // Checks every 15 s once the write is looked at; a burst every 3 checks (45 s, the timeout is 60 s).
        blockedWrite(alarm, 400, () -> {
            if (checks.incrementAndGet() % 3 == 0) {
                unacknowledged.addAndGet(-64 * 1024);
            }
        });

        assertThat(cut).hasValue(0);
    }
}
