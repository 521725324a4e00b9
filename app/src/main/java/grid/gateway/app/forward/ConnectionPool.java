package grid.gateway.app.forward;

import grid.gateway.routing.time.MonotonicClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Idle upstream connections, per {@link Origin}, at most {@code max_connections_per_cluster} each (docs/design.md §H9,
 * §H18). Connections in use are not counted or limited here, so a request never waits for one; a connection given
 * back to a full pool is closed.
 *
 * <p>Most recently used first, so a steady load keeps using the same warm connections while the rest age; idle ones
 * older than {@link #MAX_IDLE_NANOS} are closed by {@link #closeIdle()} (and when met on acquire), so a burst does not
 * leave hundreds of sockets open, most of them long closed by the engine's own keep-alive timeout (uvicorn's: 5 s).
 * Every connection handed out passes {@link UpstreamConnection#isQuiet()} first.
 *
 * <p>With {@code max_connection_age_ms} set, a connection opened that long ago is neither handed out nor taken back:
 * it closes when the answer it carries ends, never in the middle of one. A cluster whose {@code url} is a load
 * balancer that spreads connections, not requests (a Kubernetes Service), otherwise keeps sending a steady load over
 * the same warm connections to the same engines, and an engine added behind it gets a share only when the load grows.
 *
 * <p>Only the origins the config in force opens connections to are kept ({@link #retainOnly}): a reload that rotates a
 * certificate, changes a trust store or a server name, moves a cluster or drops one closes the idle connections made
 * for what it replaced at once, and one still carrying an answer then is closed when that answer ends, never given
 * back to wait in a pool nobody takes from (its client certificate may be the one just revoked, its engine the one
 * being taken out). An origin's entry goes once its last idle connection is closed: the key holds the origin's
 * {@code Tls} (its SSL context and key), so entries kept for ever would grow with every such reload.
 *
 * <p>Thread-safe: one lock per origin, never held across I/O but the non-blocking quiet check.
 */
final class ConnectionPool {
    /** How long a connection may stay idle in the pool: 60 s. */
    static final long MAX_IDLE_NANOS = 60_000_000_000L;

    private final int maxIdle;
    /** {@code max_connection_age_ms} in nanoseconds; {@link Long#MAX_VALUE}: no age limit. */
    private final long maxAgeNanos;

    private final MonotonicClock clock;
    private final ConcurrentMap<Origin, Idle> idle = new ConcurrentHashMap<>();
    /** Set by {@link #closeAll}: nothing given back is kept. */
    private volatile boolean shut;
    /** The origins whose connections are kept ({@link #retainOnly}); null: every origin's, until the first call. */
    private volatile @Nullable Set<Origin> inForce;

    /** A pool keeping at most {@code maxIdle} idle connections per origin, of any age, timed by {@code clock}. */
    ConnectionPool(int maxIdle, MonotonicClock clock) {
        this(maxIdle, Optional.empty(), clock);
    }

    /**
     * A pool keeping at most {@code maxIdle} idle connections per origin, none opened longer than {@code maxAge} ago
     * (empty: of any age), timed by {@code clock}.
     */
    ConnectionPool(int maxIdle, Optional<Duration> maxAge, MonotonicClock clock) {
        this.maxIdle = maxIdle;
        this.maxAgeNanos = maxAge.map(Duration::toNanos).orElse(Long.MAX_VALUE);
        this.clock = clock;
    }

    /** Notes that {@code connection} was opened now: its age, which {@code max_connection_age_ms} bounds, starts. */
    void opened(UpstreamConnection connection) {
        connection.openedAt(clock.nanoTime());
    }

    private boolean tooOld(UpstreamConnection connection, long now) {
        return now - connection.openedAt() >= maxAgeNanos;
    }

    /** The idle connections of one origin, newest last. */
    private static final class Idle {
        final ReentrantLock lock = new ReentrantLock();
        final ArrayDeque<UpstreamConnection> connections = new ArrayDeque<>();
        /** Out of the map: a connection given back finds a new entry instead (under {@link #lock}). */
        boolean removed;
    }

    /**
     * A quiet idle connection to {@code origin}, or null when none is left; any other met on the way is closed. Null
     * on an interrupted thread (a request whose client left): the quiet check, a read that does not wait, passes there,
     * but the request's first write on that thread, which waits, would close the connection (a blocking operation on
     * an interrupted thread closes its channel), lost to the requests after it. An interrupt that comes while the pool
     * is being looked through stops the look at the next connection, which goes back. One closed for bytes beyond its
     * answers ({@link UpstreamConnection#leftoverFound()}) tells the request it carried last, whose answer left them.
     */
    @Nullable
    UpstreamConnection acquire(Origin origin) {
        Idle pool = idle.get(origin);
        if (pool == null || Thread.currentThread().isInterrupted()) {
            return null;
        }
        long now = clock.nanoTime();
        while (true) {
            UpstreamConnection connection;
            pool.lock.lock();
            try {
                connection = pool.connections.pollLast();
            } finally {
                pool.lock.unlock();
            }
            if (connection == null) {
                return null;
            }
            if (Thread.currentThread().isInterrupted()) {
                keep(connection);
                return null;
            }
            if (now - connection.idleSince() < MAX_IDLE_NANOS && !tooOld(connection, now) && connection.isQuiet()) {
                return connection;
            }
            connection.close();
            if (connection.leftoverFound()) {
                // Told to the cluster whose answer the connection carried last, not to this request's: an origin
                // two clusters share pools their connections together.
                connection.tellLeftover(LeftoverFound.IDLE);
            }
        }
    }

    /**
     * Takes back a connection whose answer was read exactly; closes it when the pool of its origin is full or the
     * connection is older than {@code max_connection_age_ms}.
     */
    void release(UpstreamConnection connection) {
        long now = clock.nanoTime();
        if (tooOld(connection, now)) {
            connection.close();
            return;
        }
        connection.idleSince(now);
        keep(connection);
    }

    /** Keeps {@code connection}, idle since the time it carries, as the newest; closes it when the pool is full. */
    private void keep(UpstreamConnection connection) {
        while (true) {
            Idle pool = idle.computeIfAbsent(connection.origin(), o -> new Idle());
            boolean kept;
            pool.lock.lock();
            try {
                if (pool.removed) {
                    continue; // emptied and taken out by closeIdle meanwhile
                }
                // Read under the lock closeAll and retainOnly drain each pool with: a connection is either drained or
                // not kept.
                Set<Origin> live = inForce;
                kept = !shut
                        && (live == null || live.contains(connection.origin()))
                        && pool.connections.size() < maxIdle;
                if (kept) {
                    pool.connections.addLast(connection);
                }
            } finally {
                pool.lock.unlock();
            }
            if (!kept) {
                connection.close();
            }
            return;
        }
    }

    /**
     * Closes the connections idle for longer than {@link #MAX_IDLE_NANOS} or older than {@code max_connection_age_ms},
     * and forgets the origins left without one; returns how many connections.
     */
    int closeIdle() {
        long now = clock.nanoTime();
        List<UpstreamConnection> old = new ArrayList<>();
        for (Map.Entry<Origin, Idle> entry : idle.entrySet()) {
            Idle pool = entry.getValue();
            pool.lock.lock();
            try {
                // The whole deque, not its oldest end: idle order is not age order (a connection opened long ago
                // may have been given back last).
                for (Iterator<UpstreamConnection> it = pool.connections.iterator(); it.hasNext(); ) {
                    UpstreamConnection connection = it.next();
                    if (now - connection.idleSince() >= MAX_IDLE_NANOS || tooOld(connection, now)) {
                        it.remove();
                        old.add(connection);
                    }
                }
                if (pool.connections.isEmpty()) {
                    pool.removed = true;
                    idle.remove(entry.getKey(), pool);
                }
            } finally {
                pool.lock.unlock();
            }
        }
        old.forEach(UpstreamConnection::close);
        return old.size();
    }

    /**
     * Keeps the connections of {@code origins} only, those the config in force opens: closes the idle connections of
     * every other origin now, and from now on every connection of another origin given back (an answer that began
     * under the config before). Returns how many idle connections it closed.
     */
    int retainOnly(Set<Origin> origins) {
        inForce = Set.copyOf(origins);
        List<UpstreamConnection> retired = new ArrayList<>();
        for (Map.Entry<Origin, Idle> entry : idle.entrySet()) {
            if (origins.contains(entry.getKey())) {
                continue;
            }
            Idle pool = entry.getValue();
            pool.lock.lock();
            try {
                retired.addAll(pool.connections);
                pool.connections.clear();
                pool.removed = true;
                idle.remove(entry.getKey(), pool);
            } finally {
                pool.lock.unlock();
            }
        }
        retired.forEach(UpstreamConnection::close);
        return retired.size();
    }

    /** The memory the idle connections of every origin hold now ({@link UpstreamConnection#heldBytes()}). */
    long idleBytes() {
        long bytes = 0;
        for (Idle pool : idle.values()) {
            pool.lock.lock();
            try {
                for (UpstreamConnection connection : pool.connections) {
                    bytes += connection.heldBytes();
                }
            } finally {
                pool.lock.unlock();
            }
        }
        return bytes;
    }

    /** Origins with an entry (for tests). */
    int origins() {
        return idle.size();
    }

    /**
     * Closes every idle connection (shutdown), and from now on every connection given back: connections in use close
     * when their answers end, never to wait in a pool nobody takes from until the process exits.
     */
    void closeAll() {
        shut = true;
        List<UpstreamConnection> all = new ArrayList<>();
        for (Idle pool : idle.values()) {
            pool.lock.lock();
            try {
                all.addAll(pool.connections);
                pool.connections.clear();
            } finally {
                pool.lock.unlock();
            }
        }
        all.forEach(UpstreamConnection::close);
    }
}
