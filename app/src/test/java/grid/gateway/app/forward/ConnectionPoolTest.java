package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.ManualClock;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The idle pool's memory: what it keeps of an origin once that origin's connections are gone. */
class ConnectionPoolTest {
    private final ManualClock clock = new ManualClock();
    private final ConnectionPool pool = new ConnectionPool(4, clock);
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ScheduledThreadPoolExecutor watchdog = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void close() throws Exception {
        watchdog.shutdownNow();
        pool.closeAll();
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
    }

    @Test
    void originsWhoseConnectionsAllAgedOut_areForgotten() throws Exception {
        // A reload that rotates a certificate or moves a cluster makes new origins each time; the old ones must not
        // stay in the pool for ever.
        ServerSocket engine = listening();
        for (int i = 0; i < 3; i++) {
            pool.release(connection(engine, new Origin("127.0.0.1", engine.getLocalPort(), null)));
        }
        pool.release(connection(engine, new Origin("localhost", engine.getLocalPort(), null)));
        assertThat(pool.origins()).isEqualTo(2);

        clock.advance(Duration.ofNanos(ConnectionPool.MAX_IDLE_NANOS));
        assertThat(pool.closeIdle()).isEqualTo(4);

        assertThat(pool.origins()).as("origins left without an idle connection").isZero();
    }

    @Test
    void anOriginWithAConnectionStillFresh_staysAndServesIt() throws Exception {
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        pool.release(connection(engine, origin));
        clock.advance(Duration.ofSeconds(30));
        UpstreamConnection fresh = connection(engine, origin);
        pool.release(fresh);
        clock.advance(Duration.ofSeconds(30));

        assertThat(pool.closeIdle()).isEqualTo(1);

        assertThat(pool.origins()).isEqualTo(1);
        assertThat(pool.acquire(origin)).isSameAs(fresh);
    }

    @Test
    void aConnectionGivenBackAfterItsOriginWasForgotten_isPooledAgain() throws Exception {
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        pool.release(connection(engine, origin));
        clock.advance(Duration.ofNanos(ConnectionPool.MAX_IDLE_NANOS));
        pool.closeIdle();

        UpstreamConnection next = connection(engine, origin);
        pool.release(next);

        assertThat(pool.acquire(origin)).isSameAs(next);
    }

    @Test
    void aThreadWhoseClientLeft_takesNoConnection_closesNone() throws Exception {
        // The disconnect probe interrupts a request's thread when its client leaves, possibly before the request
        // asks the pool. The quiet check, a read that does not wait, passes on that thread; the connection taken
        // would be closed by the request's first write, which waits (and so closes its channel when interrupted).
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        List<UpstreamConnection> idle = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            idle.add(connection(engine, origin));
            pool.release(idle.getLast());
        }

        Thread.currentThread().interrupt();
        UpstreamConnection taken;
        try {
            taken = pool.acquire(origin);
        } finally {
            Thread.interrupted();
        }

        assertThat(taken).isNull();
        assertThat(idle).noneMatch(UpstreamConnection::isClosed);
        assertThat(pool.acquire(origin)).isSameAs(idle.getLast());
    }

    @Test
    void aClientLeavingWhileThePoolIsLookedThrough_takesNoConnection_closesNone() throws Exception {
        // The interrupt lands after the thread's look at its own interrupt (here: as the pool reads its clock), while
        // it goes through the idle connections: the quiet check passes on that thread, and the connection it took
        // would be closed by its request's first write.
        AtomicBoolean leaves = new AtomicBoolean();
        ConnectionPool looked = new ConnectionPool(4, () -> {
            if (leaves.get()) {
                Thread.currentThread().interrupt();
            }
            return clock.nanoTime();
        });
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        List<UpstreamConnection> idle = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            idle.add(connection(engine, origin));
            looked.release(idle.getLast());
        }

        leaves.set(true);
        UpstreamConnection taken;
        try {
            taken = looked.acquire(origin);
        } finally {
            Thread.interrupted();
            leaves.set(false);
        }

        assertThat(taken).isNull();
        assertThat(idle).noneMatch(UpstreamConnection::isClosed);
        assertThat(looked.acquire(origin)).isSameAs(idle.getLast());
        looked.closeAll();
    }

    @Test
    void aConnectionGivenBackAfterTheShutdown_isClosed_notKept() throws Exception {
        // An answer that ends after the shutdown closed the idle connections gives its connection back: nobody takes
        // from the pool any more, so kept it would stay open until the process exits.
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        UpstreamConnection idleOne = connection(engine, origin);
        pool.release(idleOne);
        UpstreamConnection inUse = connection(engine, origin);

        pool.closeAll();
        pool.release(inUse);

        assertThat(idleOne.isClosed()).isTrue();
        assertThat(inUse.isClosed()).isTrue();
        assertThat(pool.acquire(origin)).isNull();
    }

    @Test
    void retainOnly_closesTheIdleConnectionsOfEveryOtherOrigin_keepsTheRetainedOnes() throws Exception {
        // A reload that rotates a certificate or moves a cluster: what the config before opened is closed at once.
        ServerSocket engine = listening();
        Origin kept = new Origin("127.0.0.1", engine.getLocalPort(), null);
        Origin retired = new Origin("localhost", engine.getLocalPort(), null);
        UpstreamConnection warm = connection(engine, kept);
        UpstreamConnection old = connection(engine, retired);
        pool.release(warm);
        pool.release(old);

        assertThat(pool.retainOnly(Set.of(kept))).isEqualTo(1);

        assertThat(old.isClosed()).isTrue();
        assertThat(warm.isClosed()).isFalse();
        assertThat(pool.origins()).isEqualTo(1);
        assertThat(pool.acquire(retired)).isNull();
        assertThat(pool.acquire(kept)).isSameAs(warm);
    }

    @Test
    void aConnectionGivenBackForAnOriginNoLongerRetained_isClosed_notKept() throws Exception {
        // An answer that began under the config before ends after the reload: its connection is not pooled.
        ServerSocket engine = listening();
        Origin kept = new Origin("127.0.0.1", engine.getLocalPort(), null);
        Origin retired = new Origin("localhost", engine.getLocalPort(), null);
        UpstreamConnection inUse = connection(engine, retired);
        pool.retainOnly(Set.of(kept));

        pool.release(inUse);

        assertThat(inUse.isClosed()).isTrue();
        assertThat(pool.acquire(retired)).isNull();
        UpstreamConnection current = connection(engine, kept);
        pool.release(current);
        assertThat(pool.acquire(kept)).isSameAs(current);
    }

    @Test
    void aConnectionPastMaxConnectionAge_isNotTakenBack_norHandedOut() throws Exception {
        ConnectionPool aging = new ConnectionPool(4, Optional.of(Duration.ofSeconds(60)), clock);
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        UpstreamConnection young = connection(engine, origin);
        aging.opened(young);
        clock.advance(Duration.ofSeconds(59));
        aging.release(young);
        assertThat(aging.acquire(origin)).as("59 s old").isSameAs(young);

        clock.advance(Duration.ofSeconds(1));
        aging.release(young);

        assertThat(young.isClosed()).as("given back at 60 s").isTrue();
        assertThat(aging.acquire(origin)).isNull();

        UpstreamConnection idleAging = connection(engine, origin);
        aging.opened(idleAging);
        clock.advance(Duration.ofSeconds(30));
        aging.release(idleAging);
        clock.advance(Duration.ofSeconds(30));

        assertThat(aging.acquire(origin)).as("aged while idle").isNull();
        assertThat(idleAging.isClosed()).isTrue();
    }

    @Test
    void closeIdle_closesEveryAgedConnection_whereverItsIdleTurnPutsIt() throws Exception {
        // Given back last, so newest in idle order, yet opened first: the sweep must look past the idle order.
        ConnectionPool aging = new ConnectionPool(4, Optional.of(Duration.ofSeconds(60)), clock);
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        UpstreamConnection openedFirst = connection(engine, origin);
        aging.opened(openedFirst);
        clock.advance(Duration.ofSeconds(40));
        UpstreamConnection openedLater = connection(engine, origin);
        aging.opened(openedLater);
        aging.release(openedLater);
        clock.advance(Duration.ofSeconds(10));
        aging.release(openedFirst);

        clock.advance(Duration.ofSeconds(10));

        assertThat(aging.closeIdle()).isEqualTo(1);
        assertThat(openedFirst.isClosed()).isTrue();
        assertThat(aging.acquire(origin)).isSameAs(openedLater);
    }

    @Test
    void withoutMaxConnectionAge_anOldConnectionKeptBusy_isPooledStill() throws Exception {
        ServerSocket engine = listening();
        Origin origin = new Origin("127.0.0.1", engine.getLocalPort(), null);
        UpstreamConnection old = connection(engine, origin);
        pool.opened(old);
        for (int hour = 0; hour < 10; hour++) {
            clock.advance(Duration.ofHours(1));
            pool.release(old);
            assertThat(pool.acquire(origin)).isSameAs(old);
        }
    }

    private ServerSocket listening() throws Exception {
        ServerSocket server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        open.add(server);
        return server;
    }

    private UpstreamConnection connection(ServerSocket engine, Origin origin) throws Exception {
        SocketChannel channel = SocketChannel.open(engine.getLocalSocketAddress());
        open.add(channel);
        Socket accepted = engine.accept();
        open.add(accepted);
        return new UpstreamConnection(origin, channel, channel.socket(), watchdog);
    }
}
