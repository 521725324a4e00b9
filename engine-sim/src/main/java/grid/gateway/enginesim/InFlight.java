package grid.gateway.enginesim;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The threads working for a simulator: request handlers and background responses. Closing the simulator interrupts
 * them all, so nothing stays parked on a test's latch, in the queue, or in a pause; cancelling a background response
 * interrupts its thread.
 *
 * <p>Thread-safe: concurrent sets and maps.
 */
final class InFlight {
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Map<String, Thread> background = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Registers the calling thread until {@link #leave()}. */
    void enter() {
        threads.add(Thread.currentThread());
        if (closed) {
            Thread.currentThread().interrupt();
        }
    }

    void leave() {
        threads.remove(Thread.currentThread());
    }

    /** Runs {@code work} on a virtual thread known as the background run of {@code responseId}. */
    void background(String responseId, Runnable work) {
        Thread thread = Thread.ofVirtual().name("background-" + responseId).unstarted(() -> {
            enter();
            try {
                work.run();
            } finally {
                leave();
                background.remove(responseId);
            }
        });
        background.put(responseId, thread);
        thread.start();
    }

    /** Interrupts the background run of {@code responseId}, if it still runs. */
    void interrupt(String responseId) {
        Optional.ofNullable(background.get(responseId)).ifPresent(Thread::interrupt);
    }

    /** Interrupts every registered thread, and every thread that registers later. */
    void close() {
        closed = true;
        threads.forEach(Thread::interrupt);
    }
}
