package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.forward.SendTimeoutClaim;
import grid.gateway.app.listen.ListenerEvents;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The send timeout ({@code server.send_timeout_ms}) of every write to a client, whoever writes it (docs/design.md
 * §H19): a listener's accepted connections are wrapped ({@link WatchedChannel}, through the listener guard's
 * channel), and a sweep every quarter of the send timeout looks at the writes blocked for a quarter or more. As the
 * relay's own alarm does ({@code IdleAlarm}), it reads each blocked connection's unacknowledged bytes from the
 * kernel's TCP table (one read for all of them): a change is the client taking bytes; a connection whose client took
 * nothing for the send timeout, counted from the last change seen or from the first look, is closed. Where the table
 * cannot be read, the send timeout counts from the write's start.
 *
 * <p>The relay cuts its own stalled clients first, freeing the answer's upstream connection and memory; this watch
 * is what ends a write nothing else watches: the gateway's own answers to a client that pipelines requests and reads
 * none, the admin plane's pages (Helidon writes {@code /metrics} itself), Helidon's own refusals.
 *
 * <p>A connection is counted once however many watches cut it: the relay asks for the connection's claim
 * ({@link #claimOf}), the one this watch takes before it counts a cut (docs/metrics.md,
 * {@code grid_client_send_timeouts_total}).
 *
 * <p>Thread-safe: connections are added by accept loops and removed as they close, concurrently with the sweeps,
 * which run one at a time on the scheduler.
 */
public final class SendWatch {
    private static final System.Logger LOG = System.getLogger(SendWatch.class.getName());
    private static final boolean KERNEL = KernelTcpTable.available();

    private final ScheduledExecutorService scheduler;
    private final MonotonicClock clock;
    private final Supplier<Duration> timeout;
    private final ListenerEvents events;
    private final Set<Watched> open = ConcurrentHashMap.newKeySet();
    /** The open connections by their addresses, where the relay finds a request's connection. */
    private final Map<KernelTcpTable.Connection, Watched> byAddress = new ConcurrentHashMap<>();
    /** What the last look at each blocked connection saw; touched by sweeps only (one at a time). */
    private final Map<Watched, Look> looks = new HashMap<>();

    private volatile boolean stopped;

    /** What a look at a blocked write saw: which write, its unacknowledged bytes, when they last changed. */
    private record Look(long write, long unacknowledged, long progressAt) {}

    /** A connection whose writes are watched: an accepted one ({@link WatchedChannel}), or a test's. */
    interface Watched {
        /** When the write in progress began, or {@link #IDLE}. */
        long writingSince();

        /** How many writes began. */
        long writes();

        /** The connection as the kernel's table lists it, or null when unknown. */
        KernelTcpTable.@Nullable Connection connection();

        /** Whether the connection is still open. */
        boolean connectionOpen();

        /** Closes the connection. */
        void cut();

        /** The name of the listener that accepted it. */
        String listener();

        /** Its one claim on being counted as cut for the send timeout, shared with the relay's own cut. */
        SendTimeoutClaim timeoutClaim();
    }

    /** A {@link Watched#writingSince()} when no write is in progress. */
    static final long IDLE = Long.MIN_VALUE;

    /** Watches {@code watched} until it closes (accepted connections are added by the wrapper {@link #listener} makes). */
    void watch(Watched watched) {
        open.add(watched);
        KernelTcpTable.Connection address = watched.connection();
        if (address != null) {
            byAddress.put(address, watched);
        }
    }

    /**
     * The claim of the connection {@code request} came on, which this watch takes before counting a cut of it; a
     * claim of the request's own where the connection is not watched (an unguarded listener, addresses unknown).
     */
    public SendTimeoutClaim claimOf(ServerRequest request) {
        return request.localPeer().address() instanceof InetSocketAddress local
                        && request.remotePeer().address() instanceof InetSocketAddress remote
                ? claimOf(KernelTcpTable.Connection.of(local, remote))
                : SendTimeoutClaim.once();
    }

    /** The claim of the watched connection at {@code address}; a claim of its own when none is watched there. */
    SendTimeoutClaim claimOf(KernelTcpTable.Connection address) {
        Watched watched = byAddress.get(address);
        return watched == null ? SendTimeoutClaim.once() : watched.timeoutClaim();
    }

    private void unwatch(Watched watched) {
        open.remove(watched);
        KernelTcpTable.Connection address = watched.connection();
        if (address != null) {
            byAddress.remove(address, watched);
        }
    }

    /**
     * A watch of writes timed by {@code clock}, swept on {@code scheduler}, with the send timeout in force, telling
     * {@code events} of each connection it closes.
     */
    public SendWatch(
            ScheduledExecutorService scheduler,
            MonotonicClock clock,
            Supplier<Duration> timeout,
            ListenerEvents events) {
        this.scheduler = requireNonNull(scheduler, "scheduler");
        this.clock = requireNonNull(clock, "clock");
        this.timeout = requireNonNull(timeout, "timeout");
        this.events = requireNonNull(events, "events");
    }

    /** Starts sweeping: every quarter of the send timeout in force, until {@link #stop()}. */
    public SendWatch start() {
        next();
        return this;
    }

    /** Stops sweeping; connections stay wrapped, unwatched. */
    public void stop() {
        stopped = true;
    }

    /** What wraps each connection the listener named {@code listener} accepts, so that its writes are watched. */
    public UnaryOperator<SocketChannel> listener(String listener) {
        requireNonNull(listener, "listener");
        return accepted -> {
            WatchedChannel watched = new WatchedChannel(accepted, listener, clock, this::unwatch);
            watch(watched);
            return watched;
        };
    }

    private void next() {
        if (stopped) {
            return;
        }
        try {
            scheduler.schedule(this::sweepAndNext, quarter(timeout.get().toNanos()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
            stopped = true;
        }
    }

    private void sweepAndNext() {
        try {
            sweep(KERNEL ? this::kernelQueues : (connections, now) -> Map.of());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "send timeout sweep failed; the next one runs as planned", e);
        } finally {
            next();
        }
    }

    /** Reads the unacknowledged bytes of some connections; a connection missing from the answer is not known. */
    @FunctionalInterface
    interface Queues {
        /**
         * The bytes of {@code connections}: from a reading of now when {@code now}, else from one other looks may
         * have made shortly before.
         */
        Map<KernelTcpTable.Connection, Long> read(Set<KernelTcpTable.Connection> connections, boolean now);
    }

    /**
     * The kernel's unacknowledged bytes of {@code connections}, from the readings of their listeners' rows that the
     * relays' own looks share ({@link ListenerTcpRows}): a reading an eighth of a sweep's interval old at most, or
     * one of now.
     */
    private Map<KernelTcpTable.Connection, Long> kernelQueues(Set<KernelTcpTable.Connection> connections, boolean now) {
        long fresh = now ? 0 : quarter(timeout.get().toNanos()) / 8;
        try {
            Map<KernelTcpTable.Connection, Long> queues = new HashMap<>();
            for (KernelTcpTable.Connection connection : connections) {
                OptionalLong queued = ListenerTcpRows.KERNEL
                        .rows(connection.localPort(), fresh)
                        .sendQueue(connection);
                if (queued.isPresent()) {
                    queues.put(connection, queued.getAsLong());
                }
            }
            return queues;
        } catch (IOException | UncheckedIOException unreadable) {
            return Map.of();
        }
    }

    /**
     * One sweep: closes every connection whose client took nothing for the send timeout while a write waited on it.
     * Package-private for tests, which call it with a manual clock and queues of their own.
     *
     * @return how many connections it counted as cut (one the relay cut and counted at the same moment is not)
     */
    int sweep(Queues queues) {
        long now = clock.nanoTime();
        long limit = timeout.get().toNanos();
        List<Watched> blocked = new ArrayList<>();
        Set<KernelTcpTable.Connection> wanted = new HashSet<>();
        for (Watched channel : open) {
            long since = channel.writingSince();
            if (!channel.connectionOpen()) {
                unwatch(channel);
            } else if (since != IDLE && now - since >= quarter(limit)) {
                blocked.add(channel);
                KernelTcpTable.Connection connection = channel.connection();
                if (connection != null) {
                    wanted.add(connection);
                }
            }
        }
        looks.keySet().retainAll(new HashSet<>(blocked));
        if (blocked.isEmpty()) {
            return 0;
        }
        Map<KernelTcpTable.Connection, Long> queued = queues.read(wanted, false);
        List<Watched> due = new ArrayList<>();
        Set<KernelTcpTable.Connection> recheck = new HashSet<>();
        for (Watched channel : blocked) {
            if (now - from(channel, queued, now) >= limit) {
                due.add(channel);
                KernelTcpTable.Connection connection = channel.connection();
                if (connection != null && queued.containsKey(connection)) {
                    recheck.add(connection);
                }
            }
        }
        // The reading that found them silent may be an eighth of a sweep's interval old, and a client may have taken
        // bytes since: a cut is decided on a reading of now.
        Map<KernelTcpTable.Connection, Long> current = recheck.isEmpty() ? Map.of() : queues.read(recheck, true);
        int cut = 0;
        for (Watched channel : due) {
            KernelTcpTable.Connection connection = channel.connection();
            boolean tookBytes =
                    connection != null && current.containsKey(connection) && now - from(channel, current, now) < limit;
            if (!tookBytes && channel.writingSince() != IDLE) {
                LOG.log(
                        System.Logger.Level.DEBUG,
                        "a client took no byte for send_timeout_ms: its connection is closed");
                channel.cut();
                looks.remove(channel);
                if (channel.timeoutClaim().claim()) {
                    events.sendTimedOut(channel.listener());
                    cut++;
                }
            }
        }
        return cut;
    }

    /** Where {@code channel}'s blocked write is timed from: its start, or as the kernel's bytes tell (see above). */
    private long from(Watched channel, Map<KernelTcpTable.Connection, Long> queued, long now) {
        KernelTcpTable.Connection connection = channel.connection();
        @Nullable Long unacknowledged = connection == null ? null : queued.get(connection);
        long write = channel.writes();
        if (unacknowledged == null) {
            looks.remove(channel);
            return channel.writingSince();
        }
        Look last = looks.get(channel);
        long progressAt = last == null || last.write() != write || last.unacknowledged() != unacknowledged
                ? now
                : last.progressAt();
        looks.put(channel, new Look(write, unacknowledged, progressAt));
        return progressAt;
    }

    private static long quarter(long nanos) {
        return Math.max(1, nanos / 4);
    }
}
