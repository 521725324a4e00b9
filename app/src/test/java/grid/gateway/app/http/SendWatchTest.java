package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.forward.SendTimeoutClaim;
import grid.gateway.app.listen.ListenerEvents;
import grid.gateway.routing.time.ManualClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The send timeout's sweep over every client write, on a manual clock with the kernel's unacknowledged bytes played
 * by the test: a client that takes bytes at least once a send timeout is never cut, however long one write waits; one
 * that takes nothing is cut a quarter of the send timeout after it (the first look comes a quarter into the write).
 * Every sweep here is one the test makes.
 */
class SendWatchTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(4);
    private static final Duration QUARTER = TIMEOUT.dividedBy(4);

    private final ManualClock clock = new ManualClock();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    /** {@code grid_client_send_timeouts_total}: the watch's cuts and the relay's own, as the gateway counts both. */
    private final AtomicInteger timeouts = new AtomicInteger();

    private final SendWatch watch = new SendWatch(scheduler, clock, () -> TIMEOUT, new ListenerEvents() {
        @Override
        public void acceptPaused(String listener) {}

        @Override
        public void acceptResumed(String listener) {}

        @Override
        public void sendTimedOut(String listener) {
            timeouts.incrementAndGet();
        }
    });
    private final AtomicInteger tableReads = new AtomicInteger();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** A connection the test writes on: a write in progress or not, and what the kernel holds for its client. */
    private final class FakeConnection implements SendWatch.Watched {
        final KernelTcpTable.Connection id;
        long since = SendWatch.IDLE;
        long writes;
        long unacknowledged = 100_000;
        boolean open = true;
        final SendTimeoutClaim claim = SendTimeoutClaim.once();

        FakeConnection(int port) {
            this.id = new KernelTcpTable.Connection(
                    InetAddress.getLoopbackAddress(), 8080, InetAddress.getLoopbackAddress(), port);
        }

        void beginWrite() {
            writes++;
            since = clock.nanoTime();
        }

        @Override
        public long writingSince() {
            return since;
        }

        @Override
        public long writes() {
            return writes;
        }

        @Override
        public KernelTcpTable.@Nullable Connection connection() {
            return id;
        }

        @Override
        public boolean connectionOpen() {
            return open;
        }

        @Override
        public void cut() {
            open = false;
        }

        @Override
        public String listener() {
            return "client";
        }

        @Override
        public SendTimeoutClaim timeoutClaim() {
            return claim;
        }
    }

    private int sweep(FakeConnection... connections) {
        return watch.sweep((wanted, now) -> {
            tableReads.incrementAndGet();
            Map<KernelTcpTable.Connection, Long> queues = new java.util.HashMap<>();
            for (FakeConnection connection : connections) {
                if (wanted.contains(connection.id)) {
                    queues.put(connection.id, connection.unacknowledged);
                }
            }
            return queues;
        });
    }

    /** Sweeps every quarter, as the watch schedules itself, until the connection is cut or {@code most} sweeps ran. */
    private Duration sweepUntilCut(FakeConnection connection, int most, Runnable betweenSweeps) {
        Duration waited = Duration.ZERO;
        for (int i = 0; i < most && connection.open; i++) {
            clock.advance(QUARTER);
            waited = waited.plus(QUARTER);
            betweenSweeps.run();
            sweep(connection);
        }
        return waited;
    }

    @Test
    void sweep_clientTakesNothing_cutAQuarterAfterTheSendTimeout() {
        FakeConnection stalled = new FakeConnection(40000);
        watch.watch(stalled);
        stalled.beginWrite();

        Duration waited = sweepUntilCut(stalled, 100, () -> {});

        assertThat(stalled.open).isFalse();
        // The first look, a quarter into the write, starts the count: cut one send timeout after it.
        assertThat(waited).isEqualTo(TIMEOUT.plus(QUARTER));
    }

    @Test
    void sweep_oneWriteBlockedForMinutes_clientTakingBytesEachSecond_neverCut() {
        FakeConnection steady = new FakeConnection(40001);
        watch.watch(steady);
        steady.beginWrite();

        // Five minutes of one write that never returns (the kernel wakes the writer only once a third of the send
        // buffer is free), while the client acknowledges bytes every second.
        sweepUntilCut(steady, 300, () -> steady.unacknowledged -= 1024);

        assertThat(steady.open).isTrue();
    }

    @Test
    void sweep_clientReadingInBurstsWithPausesShorterThanTheTimeout_neverCut() {
        FakeConnection bursty = new FakeConnection(40002);
        watch.watch(bursty);
        bursty.beginWrite();
        Duration step = Duration.ofMillis(100);

        // A burst every 3.9 s (the send timeout is 4 s), falling anywhere between two sweeps (one a quarter).
        for (int tenths = 1; tenths <= 6000; tenths++) {
            clock.advance(step);
            if (tenths % 39 == 0) {
                bursty.unacknowledged -= 64 * 1024;
            }
            if (tenths % 10 == 0) {
                sweep(bursty);
            }
        }

        assertThat(bursty.open).isTrue();
    }

    @Test
    void sweep_clientStopsAfterProgress_cutOneSendTimeoutAfterTheLastProgressSeen() {
        FakeConnection stops = new FakeConnection(40003);
        watch.watch(stops);
        stops.beginWrite();
        sweepUntilCut(stops, 8, () -> stops.unacknowledged -= 1);
        assertThat(stops.open).isTrue();

        Duration waited = sweepUntilCut(stops, 100, () -> {});

        assertThat(stops.open).isFalse();
        assertThat(waited).isEqualTo(TIMEOUT);
    }

    @Test
    void sweep_clientTookBytesAfterTheSharedReading_notCut() {
        FakeConnection late = new FakeConnection(40007);
        watch.watch(late);
        late.beginWrite();
        // The latest reading of the listener's rows, which the relays' looks share for a moment; a reading of now
        // becomes the shared one.
        AtomicLong shared = new AtomicLong(late.unacknowledged);
        SendWatch.Queues queues = (wanted, now) -> {
            if (now) {
                shared.set(late.unacknowledged);
            }
            return wanted.contains(late.id) ? Map.of(late.id, shared.get()) : Map.of();
        };

        // The first look, a quarter in, starts the count; the client takes bytes just before the sweep that would
        // cut it, after the shared reading was made.
        for (int sweep = 1; sweep <= 6; sweep++) {
            clock.advance(QUARTER);
            if (sweep == 5) {
                late.unacknowledged -= 1024;
            }
            watch.sweep(queues);
        }

        assertThat(late.open)
                .as("a client that took bytes within the send timeout")
                .isTrue();
    }

    @Test
    void sweep_withoutTheKernelsView_timedFromTheWritesStart() {
        FakeConnection unknown = new FakeConnection(40004);
        watch.watch(unknown);
        unknown.beginWrite();
        Duration waited = Duration.ZERO;

        while (unknown.open) {
            clock.advance(QUARTER);
            waited = waited.plus(QUARTER);
            watch.sweep((wanted, now) -> Map.of());
        }

        assertThat(waited).isEqualTo(TIMEOUT);
    }

    @Test
    void sweep_idleConnectionsAndShortWrites_readNoTable() {
        FakeConnection idle = new FakeConnection(40005);
        FakeConnection quick = new FakeConnection(40006);
        watch.watch(idle);
        watch.watch(quick);

        for (int i = 0; i < 100; i++) {
            quick.beginWrite(); // each sweep finds a write younger than a quarter
            clock.advance(QUARTER.dividedBy(2));
            sweep(idle, quick);
            quick.since = SendWatch.IDLE;
            clock.advance(QUARTER.dividedBy(2));
            sweep(idle, quick);
        }

        assertThat(tableReads).hasValue(0);
        assertThat(idle.open).isTrue();
        assertThat(quick.open).isTrue();
    }

    @Test
    void sweep_aNewWriteAfterTheLastOneReturned_countsAfresh() {
        FakeConnection writer = new FakeConnection(40007);
        watch.watch(writer);
        writer.beginWrite();
        sweepUntilCut(writer, 4, () -> {}); // a write blocked for a timeout, its client silent, not cut yet
        assertThat(writer.open).isTrue();

        writer.beginWrite(); // it returned (the client took bytes) and the next one blocks at once
        writer.unacknowledged += 4096;
        Duration waited = sweepUntilCut(writer, 100, () -> {});

        assertThat(waited).isEqualTo(TIMEOUT.plus(QUARTER));
    }

    /**
     * The relay's own cut of the same stalled client, counted as the gateway counts it: through the claim the watch
     * finds for the request's connection.
     */
    private Runnable relayCut(FakeConnection connection) {
        return watch.claimOf(connection.id).counting(timeouts::incrementAndGet);
    }

    @Test
    void sweep_relayCutsTheSameClientWhileTheWatchDecides_countedOnce() {
        FakeConnection stalled = new FakeConnection(40010);
        watch.watch(stalled);
        stalled.beginWrite();
        Runnable relay = relayCut(stalled);
        clock.advance(QUARTER);
        sweep(stalled); // the first look starts the count
        clock.advance(TIMEOUT);

        // The sweep found the client silent for the send timeout; while it reads the table of now to decide, the
        // relay's alarm, due at the same moment, cuts and counts the same client.
        int counted = watch.sweep((wanted, now) -> {
            if (now) {
                relay.run();
            }
            return wanted.contains(stalled.id) ? Map.of(stalled.id, stalled.unacknowledged) : Map.of();
        });

        assertThat(stalled.open).isFalse();
        assertThat(counted).isZero();
        assertThat(timeouts)
                .as("grid_client_send_timeouts_total for one client")
                .hasValue(1);
    }

    @Test
    void sweep_watchCutsFirst_relaysCutAtTheSameMoment_countedOnce() {
        FakeConnection stalled = new FakeConnection(40011);
        watch.watch(stalled);
        stalled.beginWrite();
        Runnable relay = relayCut(stalled);

        sweepUntilCut(stalled, 100, () -> {});
        relay.run(); // the relay's alarm fired too: its write fails on the closed connection

        assertThat(timeouts)
                .as("grid_client_send_timeouts_total for one client")
                .hasValue(1);
    }

    @Test
    void claimOf_aConnectionNotWatched_aClaimOfItsOwn_eachRelayCutCounted() {
        FakeConnection unwatched = new FakeConnection(40012);

        relayCut(unwatched).run();
        relayCut(unwatched).run();

        assertThat(timeouts).hasValue(2);
    }
}
