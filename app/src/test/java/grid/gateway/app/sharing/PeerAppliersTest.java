package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The apply workers: one cluster's entries in order on one worker, bounded queues that drop the oldest and count. */
class PeerAppliersTest {
    private static final long WAIT_MILLIS = 10_000;

    /** What a worker applied: the entry's shard and number, and the worker's thread. */
    private record Applied(int shard, int number, String thread) {}

    private static Map<byte[], byte[]> entry(int shard, int number) {
        Map<byte[], byte[]> fields = new HashMap<>();
        fields.put("shard".getBytes(UTF_8), Integer.toString(shard).getBytes(UTF_8));
        fields.put("n".getBytes(UTF_8), Integer.toString(number).getBytes(UTF_8));
        return fields;
    }

    private static int field(Map<byte[], byte[]> fields, String name) {
        for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
            if (new String(field.getKey(), UTF_8).equals(name)) {
                return Integer.parseInt(new String(field.getValue(), UTF_8));
            }
        }
        throw new IllegalArgumentException(name);
    }

    @Test
    void oneShardsEntries_appliedInOrder_onOneWorker_shardsSpreadOverTheWorkers() throws InterruptedException {
        ConcurrentLinkedQueue<Applied> applied = new ConcurrentLinkedQueue<>();
        AtomicInteger dropped = new AtomicInteger();
        try (PeerAppliers appliers = new PeerAppliers(
                3,
                64,
                fields -> applied.add(new Applied(
                        field(fields, "shard"),
                        field(fields, "n"),
                        Thread.currentThread().getName())),
                dropped::incrementAndGet)) {
            for (int n = 0; n < 200; n++) {
                appliers.offer(entry(n % 6, n), n % 6, true);
            }
            assertThat(appliers.drain(WAIT_MILLIS)).isTrue();
        }

        assertThat(applied).hasSize(200);
        assertThat(dropped).hasValue(0);
        for (int shard = 0; shard < 6; shard++) {
            int s = shard;
            List<Applied> mine = applied.stream().filter(a -> a.shard() == s).toList();
            assertThat(mine).extracting(Applied::number).isSorted();
            assertThat(mine).extracting(Applied::thread).containsOnly("grid-sharing-apply-" + shard % 3);
        }
    }

    @Test
    void live_fullQueue_dropsTheOldest_andCountsIt() throws InterruptedException {
        List<Integer> applied = new ArrayList<>();
        AtomicInteger dropped = new AtomicInteger();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (PeerAppliers appliers = new PeerAppliers(
                1,
                2,
                fields -> {
                    int n = field(fields, "n");
                    if (n == 0) {
                        busy.countDown();
                        await(release);
                    }
                    synchronized (applied) {
                        applied.add(n);
                    }
                },
                dropped::incrementAndGet)) {
            appliers.offer(entry(0, 0), 0, false);
            assertThat(busy.await(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
            // The worker holds entry 0; its queue of 2 takes 1 and 2; 3 drops 1, 4 drops 2.
            for (int n = 1; n <= 4; n++) {
                appliers.offer(entry(0, n), 0, false);
            }
            assertThat(dropped).hasValue(2);
            release.countDown();
            assertThat(appliers.drain(WAIT_MILLIS)).isTrue();
        }
        synchronized (applied) {
            assertThat(applied).containsExactly(0, 3, 4);
        }
    }

    @Test
    void replaying_waitsForRoom_dropsNothing() throws InterruptedException {
        List<Integer> applied = new ArrayList<>();
        AtomicInteger dropped = new AtomicInteger();
        try (PeerAppliers appliers = new PeerAppliers(
                1,
                1,
                fields -> {
                    synchronized (applied) {
                        applied.add(field(fields, "n"));
                    }
                },
                dropped::incrementAndGet)) {
            for (int n = 0; n < 500; n++) {
                appliers.offer(entry(0, n), 0, true);
            }
            assertThat(appliers.drain(WAIT_MILLIS)).isTrue();
        }
        assertThat(dropped).hasValue(0);
        synchronized (applied) {
            assertThat(applied).hasSize(500).isSorted();
        }
    }

    @Test
    void drain_workerStuck_queueFull_falseWithinItsDeadline() throws InterruptedException {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (PeerAppliers appliers = new PeerAppliers(1, 1, fields -> stuck(busy, release), () -> {})) {
            appliers.offer(entry(0, 0), 0, false);
            assertThat(busy.await(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
            appliers.offer(entry(0, 1), 0, false); // the queue of 1 is full: no room for the drain's marker
            try {
                // The bound below only fails the test; the drain's own deadline is what ends the wait.
                boolean drained = assertTimeoutPreemptively(Duration.ofMillis(WAIT_MILLIS), () -> appliers.drain(50));
                assertThat(drained).isFalse();
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void replaying_workerStuck_queueFull_dropsTheOldestAfterTheReplayWait() throws InterruptedException {
        AtomicInteger dropped = new AtomicInteger();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (PeerAppliers appliers =
                new PeerAppliers(1, 1, fields -> stuck(busy, release), dropped::incrementAndGet, 50)) {
            appliers.offer(entry(0, 0), 0, true);
            assertThat(busy.await(WAIT_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
            appliers.offer(entry(0, 1), 0, true);
            try {
                assertTimeoutPreemptively(Duration.ofMillis(WAIT_MILLIS), () -> appliers.offer(entry(0, 2), 0, true));
                assertThat(dropped).hasValue(1);
            } finally {
                release.countDown();
            }
        }
    }

    /** An apply that holds its worker on {@code release} the first time (the later ones pass). */
    private static void stuck(CountDownLatch busy, CountDownLatch release) {
        busy.countDown();
        await(release);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
