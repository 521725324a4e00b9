package grid.gateway.app.http;

import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Notices a client that went away while the gateway has nothing to write to it, such as during a long silent
 * prefill, and stops its request, so the engine stops working for nobody (docs/design.md §R4;
 * docs/reliability-checklist.md G 84).
 *
 * <p>Helidon 4.5 notices a closed client connection only when a write to it fails, and its request API gives no
 * access to the socket. So a request is watched from the end of its body until its answer's first body bytes are
 * about to go to the client ({@link #answerStarts()}): from then on the relay writes, and a write (or the send
 * timeout) notices a gone client, so a stream held open for minutes costs the probe nothing. While some request is
 * watched, one sweeper (a virtual thread, alive only then) reads the kernel's TCP table every {@link #PERIOD} in
 * which some request has been watched for a period or more (a client is noticed gone within two periods of the start
 * of its request, one period later), keeping only the rows of watched connections, and, for each watched request,
 * looks up its client connection:
 *
 * <pre>
 *   CLOSE_WAIT (the client sent FIN)         → gone
 *   listed before, then missing in two sweeps in a row (a reset unlists it; one miss may be a torn read of a
 *   table that changed while it was read)    → gone
 *   anything else, or never listed           → still there (no evidence, no action)
 *   gone → the request's thread is interrupted: a blocking socket operation on a virtual thread is then closed
 *          (JEP 444), so the upstream connection it waits on closes at once and the engine aborts the request;
 *          the watch's close ends the client connection.
 * </pre>
 *
 * <p>A client that half-closes its side after sending the request counts as gone, as nginx's client-abort check
 * treats it. Off where the table cannot be read (not Linux): then a gone client is noticed on the next write.
 *
 * <p>Thread-safe: watches are added and removed concurrently; each watch's interrupt is guarded by its lock so it
 * can never reach the thread after the request let go of it.
 */
final class ClientDisconnectProbe {
    /** How often the table is read while a request is watched. */
    static final Duration PERIOD = Duration.ofMillis(250);

    /** The watched requests, by the thread that forwards each (one request at a time a thread). */
    private final Map<Thread, Watch> watches = new ConcurrentHashMap<>();

    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final boolean enabled;

    /** A probe that runs where the kernel's TCP table is readable. */
    ClientDisconnectProbe() {
        this(KernelTcpTable.available());
    }

    /** A probe whose sweeper runs only when {@code enabled}; tests disable it and call {@link #sweep}. */
    ClientDisconnectProbe(boolean enabled) {
        this.enabled = enabled;
    }

    /** Watches {@code request}'s client connection on behalf of the calling thread, until the watch is closed. */
    Watch watch(ServerRequest request) {
        if (!enabled
                || !(request.localPeer().address() instanceof InetSocketAddress local)
                || !(request.remotePeer().address() instanceof InetSocketAddress remote)) {
            return new Watch(null, Thread.currentThread());
        }
        return watch(KernelTcpTable.Connection.of(local, remote));
    }

    /** Watches {@code connection} on behalf of the calling thread. */
    Watch watch(KernelTcpTable.Connection connection) {
        Watch watch = new Watch(connection, Thread.currentThread());
        watches.put(watch.thread, watch);
        if (enabled) {
            startSweeper();
        }
        return watch;
    }

    /**
     * The calling thread's request is about to write its answer's first body bytes to the client: it is watched no
     * more (closing its watch still ends a connection found gone). Writing notices a gone client from now on.
     */
    void answerStarts() {
        watches.remove(Thread.currentThread());
    }

    private void startSweeper() {
        if (sweeping.compareAndSet(false, true)) {
            Thread.ofVirtual().name("grid-client-probe").start(this::sweepWhileWatched);
        }
    }

    private void sweepWhileWatched() {
        while (true) {
            LockSupport.parkNanos(PERIOD.toNanos());
            if (watches.isEmpty()) {
                sweeping.set(false);
                // A watch added after the check above finds sweeping false and starts its own sweeper.
                if (watches.isEmpty() || !sweeping.compareAndSet(false, true)) {
                    return;
                }
            }
            if (!anyWatchedFor(PERIOD.toNanos())) {
                // Every request in flight began within the last period (a busy gateway of short requests): none
                // has been silent long enough to matter, so the table is not read this round.
                continue;
            }
            try {
                sweep(KernelTcpTable.read(watchedConnections()));
            } catch (IOException | RuntimeException unreadable) {
                // No evidence this round; try again next period.
            }
        }
    }

    /** The client connections of the watched requests: the only rows of the table the sweep needs. */
    private Set<KernelTcpTable.Connection> watchedConnections() {
        Set<KernelTcpTable.Connection> wanted = new HashSet<>();
        for (Watch watch : watches.values()) {
            if (watch.connection != null) {
                wanted.add(watch.connection);
            }
        }
        return wanted;
    }

    private boolean anyWatchedFor(long nanos) {
        long now = System.nanoTime();
        for (Watch watch : watches.values()) {
            if (now - watch.since >= nanos) {
                return true;
            }
        }
        return false;
    }

    /** Checks every watched request against {@code table}. */
    void sweep(KernelTcpTable table) {
        for (Watch watch : watches.values()) {
            watch.check(table);
        }
    }

    /** One watched request: closed by the request's thread when forwarding ends. */
    final class Watch implements AutoCloseable {
        /** Null for a watch that watches nothing (probe off, or no TCP peer); such a watch is never checked. */
        private final KernelTcpTable.@Nullable Connection connection;

        private final Thread thread;
        /** When the watch began ({@link System#nanoTime}). */
        private final long since = System.nanoTime();

        private final ReentrantLock lock = new ReentrantLock();
        private boolean done;
        private volatile boolean gone;
        private boolean listed;
        private int misses;

        private Watch(KernelTcpTable.@Nullable Connection connection, Thread thread) {
            this.connection = connection;
            this.thread = thread;
        }

        /** Whether the client was found gone. */
        boolean clientGone() {
            return gone;
        }

        void check(KernelTcpTable table) {
            if (connection == null) {
                return;
            }
            Optional<Integer> state = table.state(connection);
            if (state.isPresent() && state.get() != KernelTcpTable.CLOSE_WAIT) {
                listed = true;
                misses = 0;
            } else if (state.isPresent() || (listed && ++misses >= 2)) {
                cancel();
            }
        }

        private void cancel() {
            lock.lock();
            try {
                if (!done && !gone) {
                    gone = true;
                    thread.interrupt();
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Stops watching. If the client was found gone, clears the interrupt this watch caused and ends the client
         * connection.
         *
         * @throws CloseConnectionException if the client went away
         */
        @Override
        public void close() {
            lock.lock();
            try {
                done = true;
            } finally {
                lock.unlock();
            }
            watches.remove(thread, this);
            if (gone) {
                Thread.interrupted();
                throw new CloseConnectionException("the client went away while its request was forwarded");
            }
        }
    }
}
