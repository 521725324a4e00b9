package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.time.MonotonicClock;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The idle timeout of one upstream answer (docs/design.md §9): runs {@code onIdle} (which closes the answer) once a single read
 * has waited longer than the timeout. Time the relay spends writing to the client is not silence.
 *
 * <p>One alarm per answer, not one per read: a read only stamps when it started and when it returned, and the alarm,
 * when it goes off, re-arms itself for whatever is left of the read in progress. Scheduling and cancelling a task
 * per read cost a queue insertion under the scheduler's lock on every chunk of every answer, and each cancelled
 * task stayed queued (holding its answer) until its deadline, minutes later.
 *
 * <pre>
 *   relay thread:      read() ─ stamp start ─ in.read ─ clear ─ write to client ─ read() ─ …
 *   scheduler thread:  check(): reading for ≥ timeout → onIdle; else re-arm for the rest (or the whole timeout)
 * </pre>
 *
 * <p>Thread-safe for one relay thread plus the scheduler: the stamp is volatile, and {@link #close()} stops any
 * re-arming.
 */
final class IdleAlarm implements AutoCloseable {
    private final ScheduledExecutorService scheduler;
    private final MonotonicClock clock;
    private final long timeoutNanos;
    private final Runnable onIdle;
    private volatile long readStart;
    private volatile boolean reading;
    private volatile boolean closed;
    private volatile @Nullable ScheduledFuture<?> pending;

    private IdleAlarm(ScheduledExecutorService scheduler, MonotonicClock clock, Duration timeout, Runnable onIdle) {
        this.scheduler = requireNonNull(scheduler, "scheduler");
        this.clock = requireNonNull(clock, "clock");
        this.timeoutNanos = timeout.toNanos();
        this.onIdle = requireNonNull(onIdle, "onIdle");
    }

    /** An armed alarm: {@code onIdle} runs when one read waits longer than {@code timeout}. */
    static IdleAlarm arm(ScheduledExecutorService scheduler, MonotonicClock clock, Duration timeout, Runnable onIdle) {
        IdleAlarm alarm = new IdleAlarm(scheduler, clock, timeout, onIdle);
        alarm.schedule(alarm.timeoutNanos);
        return alarm;
    }

    /** One read of {@code in}, watched by this alarm. */
    int read(InputStream in, byte[] buffer) throws IOException {
        return read(in, buffer, buffer.length);
    }

    /** As {@link #read(InputStream, byte[])}, asking for at most {@code length} bytes. */
    int read(InputStream in, byte[] buffer, int length) throws IOException {
        readStart = clock.nanoTime();
        reading = true; // after the stamp: a check that sees this flag sees this read's start
        try {
            return in.read(buffer, 0, length);
        } finally {
            reading = false;
        }
    }

    /**
     * What the alarm does when it goes off: runs {@code onIdle} if the read in progress has waited the whole timeout,
     * else re-arms for the time left (the whole timeout when no read is in progress). Package-private for tests.
     *
     * @return the nanoseconds until the next check, or {@code -1} when it fired or is closed
     */
    long check() {
        if (closed) {
            return -1;
        }
        long left = reading ? timeoutNanos - (clock.nanoTime() - readStart) : timeoutNanos;
        if (left <= 0) {
            onIdle.run();
            return -1;
        }
        schedule(left);
        return left;
    }

    private void schedule(long nanos) {
        pending = scheduler.schedule(this::check, nanos, TimeUnit.NANOSECONDS);
        if (closed) {
            pending.cancel(false); // close() ran while this was being scheduled
        }
    }

    /** Disarms the alarm; the answer was read to its end or abandoned. */
    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> current = pending;
        if (current != null) {
            current.cancel(false);
        }
    }
}
