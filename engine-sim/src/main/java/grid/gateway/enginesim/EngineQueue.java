package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The simulated scheduler queue: a fixed number of slots (vLLM's running batch) and a first-come, first-served line
 * of requests waiting for one. {@code running} and {@code waiting} are what {@code /metrics} reports as
 * {@code vllm:num_requests_running} and {@code vllm:num_requests_waiting} (docs/design.md §A6.2).
 *
 * <pre>
 *   arrive ─▶ [ waiting: a FIFO line ] ─▶ [ running: at most slots ] ─▶ release
 * </pre>
 *
 * <p>Thread-safe: one {@link ReentrantLock} (virtual threads wait on its condition without pinning a carrier).
 */
final class EngineQueue {
    private final int slots;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Deque<Object> line = new ArrayDeque<>();
    private int running;

    EngineQueue(int slots) {
        if (slots <= 0) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: > 0)");
        }
        this.slots = slots;
    }

    /**
     * Waits for a slot in arrival order and takes it; close the result to give it back. {@code taken} runs as the
     * slot is taken, before anyone can see it running (what a running request holds is counted with it).
     *
     * @throws InterruptedException if interrupted while waiting; the request then leaves the line
     */
    Slot admit(Runnable taken) throws InterruptedException {
        requireNonNull(taken, "taken");
        Object place = new Object();
        lock.lock();
        try {
            line.addLast(place);
            changed.signalAll();
            try {
                while (line.peekFirst() != place || running >= slots) {
                    changed.await();
                }
            } catch (InterruptedException e) {
                line.remove(place);
                changed.signalAll();
                throw e;
            }
            line.removeFirst();
            taken.run();
            running++;
            changed.signalAll();
            return new Slot();
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a slot and takes it ({@link #admit(Runnable)} with nothing to run). */
    Slot admit() throws InterruptedException {
        return admit(() -> {});
    }

    /** Requests holding a slot. */
    int running() {
        lock.lock();
        try {
            return running;
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting for a slot. */
    int waiting() {
        lock.lock();
        try {
            return line.size();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until exactly {@code running} requests run and {@code waiting} wait; false on timeout. */
    boolean awaitCounts(int running, int waiting, Duration timeout) throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (this.running != running || line.size() != waiting) {
                if (left <= 0) {
                    return false;
                }
                left = changed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A taken slot; {@link #close()} gives it back once. */
    final class Slot implements AutoCloseable {
        private boolean closed;

        @Override
        public void close() {
            lock.lock();
            try {
                if (!closed) {
                    closed = true;
                    running--;
                    changed.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public String toString() {
        return "EngineQueue[slots=" + slots + "]";
    }
}
