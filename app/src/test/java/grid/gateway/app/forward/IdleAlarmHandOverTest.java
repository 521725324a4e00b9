package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The alarm hands its connection over cleanly: once an answer let go of the connection (to the pool, where another
 * request takes it), the alarm never closes it. A check that went off as the last read returned is waited for, and
 * the answer is told the connection was closed under it; a check after that never closes it.
 */
class IdleAlarmHandOverTest {
    private static final Duration TIMEOUT = Duration.ofHours(1);
    private static final long BOUND_SECONDS = 30;

    private final ManualClock clock = new ManualClock();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final CountDownLatch inAction = new CountDownLatch(1);
    private final CountDownLatch letGo = new CountDownLatch(1);
    private final AtomicInteger closes = new AtomicInteger();

    @AfterEach
    void stop() {
        letGo.countDown();
        scheduler.shutdownNow();
    }

    /** An alarm whose action (closing the connection) is held until the test lets it go. */
    private IdleAlarm armHeld() {
        return IdleAlarm.arm(scheduler, clock, TIMEOUT, () -> {
            closes.incrementAndGet();
            inAction.countDown();
            awaitQuietly(letGo);
        });
    }

    @Test
    void endUpstream_asACheckClosesTheConnection_waitsForIt_andSaysTheConnectionIsNotToBePooled() throws Exception {
        IdleAlarm alarm = armHeld();
        goesOffDuringTheLastRead(alarm);

        // The read returned as the check decided: the answer lets go of the connection.
        Running<Boolean> end = startOnAThread(alarm::endUpstream);
        awaitBlocked(end);
        letGo.countDown();

        assertThat(end.get()).isFalse();
        assertThat(closes).hasValue(1);
    }

    @Test
    void close_asACheckRunsItsAction_returnsOnlyOnceTheActionIsDone() throws Exception {
        IdleAlarm alarm = armHeld();
        goesOffDuringTheLastRead(alarm);

        Running<Boolean> closed = startOnAThread(() -> {
            alarm.close();
            return true;
        });
        awaitBlocked(closed);
        letGo.countDown();

        assertThat(closed.get()).isTrue();
    }

    @Test
    void endUpstream_thenAnUpstreamWaitPastTheTimeout_neverClosesTheConnection() throws IOException {
        letGo.countDown();
        IdleAlarm alarm = armHeld();
        assertThat(alarm.endUpstream()).isTrue();
        AtomicLong next = new AtomicLong();

        alarm.read(
                readThat(() -> {
                    clock.advance(TIMEOUT.multipliedBy(2));
                    next.set(alarm.check());
                }),
                new byte[1]);

        assertThat(closes).hasValue(0);
        assertThat(next).hasValue(TIMEOUT.toNanos());
        assertThat(alarm.fired()).isFalse();
    }

    /** Runs a read that waits the whole timeout, during which a check on another thread goes off and is held. */
    private void goesOffDuringTheLastRead(IdleAlarm alarm) throws IOException {
        alarm.read(
                readThat(() -> {
                    clock.advance(TIMEOUT);
                    Thread.ofPlatform().daemon().start(alarm::check);
                    awaitQuietly(inAction);
                }),
                new byte[1]);
    }

    /** A stream whose one read runs {@code during} (the time the read waits) and returns a byte. */
    static InputStream readThat(Runnable during) {
        return new InputStream() {
            @Override
            public int read() {
                return -1;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                during.run();
                return 1;
            }
        };
    }

    /** A call running on a platform thread of its own. */
    private record Running<T>(FutureTask<T> task, Thread thread) {
        T get() throws Exception {
            return task.get(BOUND_SECONDS, TimeUnit.SECONDS);
        }
    }

    private static <T> Running<T> startOnAThread(Callable<T> call) {
        FutureTask<T> task = new FutureTask<>(call);
        return new Running<>(task, Thread.ofPlatform().daemon().start(task));
    }

    /** Waits (bounded) until the call's thread waits to enter the alarm's monitor, held by the running check. */
    private static void awaitBlocked(Running<?> running) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (running.thread().getState() != Thread.State.BLOCKED) {
            assertThat(running.task().isDone())
                    .as("returned while the check was still closing the connection")
                    .isFalse();
            assertThat(System.nanoTime()).as("never waited for the check").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
