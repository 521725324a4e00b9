package grid.gateway.app.sharing;

import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Applies the peers' entries on a few threads, sharded by cluster (docs/prefix-sharing.md, "Applying on more than one
 * thread"): the reader gives each cluster one worker, so one cluster's entries are applied in stream order (a drop
 * after a confirmation stays after it) while different clusters' entries, whose LRUs lock separately, are applied
 * side by side.
 *
 * <p>Each worker has a bounded queue. While reading live, a full queue drops its oldest entry and counts it (the
 * newest entries are the ones worth applying, as in the publisher); while replaying for the warm start the reader
 * waits for room instead, since the replay is what the warm start is for, but at most {@link #REPLAY_WAIT_MILLIS} an
 * entry: a worker that stopped taking (an apply stuck) costs entries, counted as drops, never the reader.
 *
 * <p>The workers are platform threads: applying is CPU-bound and never blocks, so on virtual threads it would hold
 * the carriers that serve requests.
 *
 * <p>Thread-safe: {@link #offer} and {@link #drain} are called by the reader thread only; the queues are concurrent.
 */
final class PeerAppliers implements AutoCloseable {
    /** Entries waiting per worker: two of the reader's batches. */
    static final int QUEUE_CAPACITY = 2 * SharingReader.COUNT;
    /** How long a replayed entry waits for room in its worker's queue before the oldest one is dropped for it. */
    static final long REPLAY_WAIT_MILLIS = 10_000;

    private final ArrayBlockingQueue<Runnable>[] queues;
    private final Thread[] workers;
    private final Consumer<Map<byte[], byte[]>> apply;
    private final Runnable droppedOldest;
    private final long replayWaitMillis;

    /**
     * Starts {@code threads} workers; a replayed entry waits at most {@link #REPLAY_WAIT_MILLIS} for room.
     *
     * @param threads how many workers (at least 1)
     * @param capacity each worker's queue capacity
     * @param apply applies one entry's raw fields (on a worker)
     * @param droppedOldest counts one entry dropped from a full queue
     */
    PeerAppliers(int threads, int capacity, Consumer<Map<byte[], byte[]>> apply, Runnable droppedOldest) {
        this(threads, capacity, apply, droppedOldest, REPLAY_WAIT_MILLIS);
    }

    /** Starts {@code threads} workers; a replayed entry waits at most {@code replayWaitMillis} for room. */
    @SuppressWarnings("unchecked")
    PeerAppliers(
            int threads,
            int capacity,
            Consumer<Map<byte[], byte[]>> apply,
            Runnable droppedOldest,
            long replayWaitMillis) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
        }
        this.apply = apply;
        this.droppedOldest = droppedOldest;
        this.replayWaitMillis = replayWaitMillis;
        queues = new ArrayBlockingQueue[threads];
        workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ArrayBlockingQueue<Runnable> queue = new ArrayBlockingQueue<>(capacity);
            queues[i] = queue;
            workers[i] =
                    Thread.ofPlatform().daemon().name("grid-sharing-apply-" + i).start(() -> work(queue));
        }
    }

    /** Workers for this machine: half its processors, at least 1, at most 4. */
    static int defaultThreads() {
        return Math.clamp(Runtime.getRuntime().availableProcessors() / 2, 1, 4);
    }

    /** How many workers there are. */
    int threads() {
        return workers.length;
    }

    /**
     * Hands one entry to worker {@code shard} (modulo the workers); {@code replaying}: waits for room (within the
     * replay wait), then, as while reading live, a full queue drops its oldest entry (counted).
     */
    void offer(Map<byte[], byte[]> fields, int shard, boolean replaying) throws InterruptedException {
        ArrayBlockingQueue<Runnable> queue = queues[Math.floorMod(shard, queues.length)];
        Runnable task = () -> apply.accept(fields);
        if (replaying && queue.offer(task, replayWaitMillis, TimeUnit.MILLISECONDS)) {
            return;
        }
        while (!queue.offer(task)) {
            if (queue.poll() != null) {
                droppedOldest.run();
            }
        }
    }

    /**
     * Runs {@code done} (on a worker) once every entry offered so far was applied, without waiting: a marker in each
     * worker's queue, offered as an entry is while reading live (a full queue drops its oldest item, and a marker
     * dropped so only means {@code done} never runs).
     */
    void after(Runnable done) {
        AtomicInteger left = new AtomicInteger(queues.length);
        Runnable marker = () -> {
            if (left.decrementAndGet() == 0) {
                done.run();
            }
        };
        for (ArrayBlockingQueue<Runnable> queue : queues) {
            while (!queue.offer(marker)) {
                if (queue.poll() != null) {
                    droppedOldest.run();
                }
            }
        }
    }

    /**
     * Waits until every entry offered so far was applied; false when {@code millis} passed first. The whole wait is
     * within {@code millis}, the wait for room for each worker's marker included: a worker that stopped taking, its
     * queue full, makes the drain false, not endless.
     */
    boolean drain(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        CountDownLatch done = new CountDownLatch(queues.length);
        for (ArrayBlockingQueue<Runnable> queue : queues) {
            if (!queue.offer(done::countDown, deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return done.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    private static void work(ArrayBlockingQueue<Runnable> queue) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                queue.take().run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the workers; what is still queued is not applied. */
    @Override
    public void close() {
        for (Thread worker : workers) {
            worker.interrupt();
        }
    }
}
