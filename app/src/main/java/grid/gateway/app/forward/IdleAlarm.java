package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.time.MonotonicClock;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The deadlines of one exchange (docs/design.md §9, §H19), watched by one alarm: an upstream operation (writing the
 * request, one read of the answer's body) that waits longer than the idle timeout runs {@code onIdle}, which closes the
 * upstream connection; a write to the client that waits longer than the send timeout ({@link #client}) runs the
 * client's cut, which closes the client connection (nginx's {@code send_timeout}: the time the client takes nothing,
 * not the whole answer). Time spent on one side is never counted against the other.
 *
 * <p>A blocked write to the client is not proof that the client takes nothing: the kernel wakes a blocked writer only
 * once a third of the socket's send buffer is free, and Linux grows that buffer to megabytes, so a client steadily
 * reading tens of KiB a second can hold one write for minutes. Where the kernel tells a client's unacknowledged bytes
 * ({@link ClientProgress}), a client write blocked for a quarter of the send timeout is looked at every quarter: a
 * change in those bytes (nothing else writes while the write is blocked) is the client taking some, and the send
 * timeout counts from the last look that saw one, or from the first look. So a client that takes bytes at least once
 * a send timeout is never cut, and one that takes nothing is cut between one and one and a half send timeouts after
 * its write began. Where the kernel tells nothing, the send timeout counts from the write's start. The send timeout
 * is the one in force at each look ({@code server.send_timeout_ms} is applied live), not the one of the answer's start.
 *
 * <p>One alarm per exchange, not one per operation: an operation only stamps when it started, with its timeout, and
 * when it returned, and the alarm, when it goes off, re-arms itself for whatever is left of the operation in progress,
 * but never for longer than the idle timeout or a quarter of the send timeout, whichever is shorter: the operation in
 * progress may end at once, and the next one, of the other side, has to be looked at in time (an engine that falls
 * silent after a write to a slow client is cut at the idle timeout, not at the look that write would have had).
 * Scheduling and cancelling a task per read cost a queue insertion under the scheduler's lock on every chunk of every
 * answer, and each cancelled task stayed queued (holding its answer) until its deadline, minutes later.
 *
 * <pre>
 *   relay thread:      read() ─ stamp ─ in.read ─ clear ─ clientWrite() ─ stamp ─ out.write ─ clear ─ read() ─ …
 *   scheduler thread:  check(): the operation in progress has waited its timeout → its action; else re-arm for the
 *                      rest, at most min(idle timeout, send timeout / 4)
 * </pre>
 *
 * <p>Thread-safe for one relay thread plus the scheduler: the stamp is volatile (its timeout written last and cleared
 * first, so a check never pairs an older, shorter timeout with a later start), and {@link #close()} stops any
 * re-arming.
 */
final class IdleAlarm implements AutoCloseable {
    /** A client operation that has no deadline: the alarm never acts on it. */
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private final ScheduledExecutorService scheduler;
    private final MonotonicClock clock;
    private final long idleNanos;
    private final Runnable onIdle;
    /** The send timeout in force, read at each look (a reload applies to a write already blocked); none at first. */
    private volatile LongSupplier clientNanos = () -> NO_DEADLINE;

    private volatile ClientProgress progress = ClientProgress.NONE;
    private volatile Runnable onStall = () -> {};
    /** Counts the client writes begun, so that a look at a blocked one knows whether it saw this one before. */
    private final AtomicLong clientWrites = new AtomicLong();
    /** What the last look at a blocked client write saw; guarded by {@code this} (checks may overlap). */
    private long lookedAtOperation = -1;

    private long lastUnacknowledged;
    private long progressAt;
    /** When the operation in progress began. */
    private volatile long busySince;
    /** The timeout of the operation in progress, 0 when none is. */
    private volatile long busyTimeout;

    private volatile boolean busyClient;
    private volatile boolean closed;
    /** The answer let go of its connection ({@link #endUpstream}): onIdle never runs; guarded by {@code this}. */
    private boolean upstreamEnded;

    private volatile boolean fired;
    private volatile boolean stalled;
    private volatile @Nullable ScheduledFuture<?> pending;

    private IdleAlarm(ScheduledExecutorService scheduler, MonotonicClock clock, Duration timeout, Runnable onIdle) {
        this.scheduler = requireNonNull(scheduler, "scheduler");
        this.clock = requireNonNull(clock, "clock");
        this.idleNanos = timeout.toNanos();
        this.onIdle = requireNonNull(onIdle, "onIdle");
    }

    /** An armed alarm: {@code onIdle} runs when one upstream operation waits longer than {@code timeout}. */
    static IdleAlarm arm(ScheduledExecutorService scheduler, MonotonicClock clock, Duration timeout, Runnable onIdle) {
        IdleAlarm alarm = new IdleAlarm(scheduler, clock, timeout, onIdle);
        alarm.schedule(alarm.idleNanos);
        return alarm;
    }

    /**
     * Watches writes to the client from now on: {@code onStall} runs when one waits the deadline's timeout with the
     * client taking nothing (as far as its {@link ClientProgress} tells). The next check comes at the latest at
     * {@link #cadence()}.
     */
    void client(SendDeadline deadline, Runnable stall) {
        this.onStall = requireNonNull(stall, "stall");
        this.progress = deadline.progress();
        this.clientNanos = deadline::nanos;
        long soonest = cadence();
        if (soonest < idleNanos) {
            // The check in the queue is due at the idle timeout at most: a write may need its first look sooner.
            ScheduledFuture<?> due = pending;
            schedule(soonest);
            if (due != null) {
                due.cancel(false);
            }
        }
    }

    /**
     * The longest wait between two checks: the idle timeout, or a quarter of the send timeout in force when that is
     * shorter. An operation only stamps its start, so whatever the check in the queue was timed for (the rest of a
     * read of the engine, a look at a blocked write), the operation that begins next is looked at in time: a read's
     * silence is acted on at the idle timeout, and a blocked write first looked at a quarter into it.
     */
    private long cadence() {
        return Math.min(idleNanos, Math.max(1, clientNanos.getAsLong() / 4));
    }

    /** Whether the upstream side went off: an upstream operation waited the whole idle timeout. */
    boolean fired() {
        return fired;
    }

    /** Whether the client side went off: a write to the client waited the whole send timeout. */
    boolean stalled() {
        return stalled;
    }

    /** Now, on the alarm's clock. */
    long now() {
        return clock.nanoTime();
    }

    /** Whether an idle timeout or more has passed since {@code since} ({@link #now()} then). */
    boolean idleTimeoutPassedSince(long since) {
        return clock.nanoTime() - since >= idleNanos;
    }

    /** One write of {@code bytes[offset, offset + length)} to the upstream {@code connection}, watched. */
    void write(UpstreamConnection connection, byte[] bytes, int offset, int length) throws IOException {
        begin(idleNanos, false);
        try {
            connection.write(bytes, offset, length);
        } finally {
            busyTimeout = 0;
        }
    }

    /** One read of {@code in}, watched. */
    int read(InputStream in, byte[] buffer) throws IOException {
        return read(in, buffer, buffer.length);
    }

    /** As {@link #read(InputStream, byte[])}, asking for at most {@code length} bytes. */
    int read(InputStream in, byte[] buffer, int length) throws IOException {
        begin(idleNanos, false);
        try {
            return in.read(buffer, 0, length);
        } finally {
            busyTimeout = 0;
        }
    }

    /** A write to the client, watched by the send timeout once {@link #client} set one. */
    void clientWrite(ClientWrite write) throws IOException {
        begin(clientNanos.getAsLong(), true);
        try {
            write.run();
        } finally {
            busyTimeout = 0;
        }
    }

    /** One write (or flush) to the client. */
    @FunctionalInterface
    interface ClientWrite {
        void run() throws IOException;
    }

    private void begin(long timeout, boolean client) {
        if (client) {
            clientWrites.incrementAndGet();
        }
        busySince = clock.nanoTime();
        busyClient = client;
        busyTimeout = timeout; // last: a check that sees it sees this operation's start and side
    }

    /**
     * What the alarm does when it goes off: runs the action of the operation in progress if it has waited its whole
     * timeout (a client write: with the client taking nothing), else re-arms for the time left, and never for longer
     * than {@link #cadence()}, so that an operation of the other side beginning meanwhile is looked at in time.
     * Package-private for tests.
     *
     * @return the nanoseconds until the next check, or {@code -1} when it fired or is closed
     */
    synchronized long check() {
        if (closed) {
            return -1;
        }
        long stamped = busyTimeout;
        long soonest = cadence();
        if (stamped == 0 || stamped == NO_DEADLINE) {
            schedule(soonest);
            return soonest;
        }
        long operation = clientWrites.get();
        long since = busySince;
        boolean client = busyClient;
        // A client write is timed by the send timeout in force now: a reload that changed it applies to this write.
        long timeout = client ? clientNanos.getAsLong() : stamped;
        long now = clock.nanoTime();
        long quarter = Math.max(1, timeout / 4);
        long from = since;
        long next = Long.MAX_VALUE;
        boolean looked = false;
        if (client && now - since >= quarter) {
            // A reading up to an eighth of the gap between two looks old still tells them apart.
            OptionalLong unacknowledged = progress.unacknowledged(quarter / 8);
            if (unacknowledged.isPresent()) {
                from = progressed(operation, unacknowledged.getAsLong(), now);
                next = quarter;
                looked = true;
            }
        } else if (client) {
            next = quarter - (now - since); // the first look, a quarter into the write
        }
        if (busyTimeout != stamped || clientWrites.get() != operation) {
            long again = Math.min(quarter, soonest);
            schedule(again); // the operation ended while it was looked at: nothing to decide about it
            return again;
        }
        long left = timeout - (now - from);
        if (left <= 0 && looked) {
            // The reading that found the client silent may be an eighth of a quarter old, and the client may have
            // taken bytes since: a cut is decided on a reading of now.
            OptionalLong current = progress.unacknowledged(0);
            if (current.isPresent()) {
                from = progressed(operation, current.getAsLong(), now);
                left = timeout - (now - from);
            }
        }
        if (left <= 0) {
            return wentOff(client);
        }
        long wait = Math.min(Math.min(left, next), soonest);
        schedule(wait);
        return wait;
    }

    /**
     * The operation in progress waited its whole timeout: runs its action and returns -1. An upstream operation after
     * {@link #endUpstream} is not this alarm's to end (the connection may carry another request): re-armed instead.
     * Called by {@link #check()}, under its lock.
     */
    private long wentOff(boolean client) {
        if (client) {
            stalled = true;
            onStall.run();
            return -1;
        }
        if (upstreamEnded) {
            long soonest = cadence();
            schedule(soonest);
            return soonest;
        }
        fired = true;
        onIdle.run();
        return -1;
    }

    /**
     * Where a blocked client write's timeout counts from, given the client's {@code unacknowledged} bytes now: the
     * first look at a write starts it afresh; a later look that sees them changed (the client took bytes) moves it
     * to now; otherwise it stays where the last change put it.
     */
    private long progressed(long operation, long unacknowledged, long now) {
        if (operation != lookedAtOperation || unacknowledged != lastUnacknowledged) {
            progressAt = now;
        }
        lookedAtOperation = operation;
        lastUnacknowledged = unacknowledged;
        return progressAt;
    }

    private void schedule(long nanos) {
        pending = scheduler.schedule(this::check, nanos, TimeUnit.NANOSECONDS);
        if (closed) {
            pending.cancel(false); // close() ran while this was being scheduled
        }
    }

    /**
     * Ends the watch of the upstream side, as the answer lets go of its connection: from the return on, the alarm
     * never runs its {@code onIdle} (which closes that connection, by then another request's once it is pooled), and
     * a check running it now is waited for. Client writes stay watched until {@link #close()}.
     *
     * @return whether the connection is still the answer's to pool: false when the alarm went off first and closed it
     */
    synchronized boolean endUpstream() {
        upstreamEnded = true;
        return !fired;
    }

    /**
     * Disarms the alarm; the exchange ended. A check running its action now is waited for, so that no action runs
     * after the return (the connection may be pooled and another request's by then).
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        ScheduledFuture<?> current = pending;
        if (current != null) {
            current.cancel(false);
        }
    }
}
