package grid.gateway.app.sharing;

import java.time.Duration;

/**
 * Reconnect delays of a sharing thread: 100 ms doubling to 5 s, back to the start after a success, so a Redis that
 * is down costs a few connection attempts a minute and one that returns is used again within seconds.
 *
 * <p>Not thread-safe: each thread has its own.
 */
final class Backoff {
    static final Duration FIRST = Duration.ofMillis(100);
    static final Duration MAX = Duration.ofSeconds(5);

    private Duration next = FIRST;

    /** The delay before the next attempt; each call doubles the one after, up to {@link #MAX}. */
    Duration next() {
        Duration now = next;
        next = next.multipliedBy(2).compareTo(MAX) > 0 ? MAX : next.multipliedBy(2);
        return now;
    }

    /** An attempt succeeded. */
    void reset() {
        next = FIRST;
    }

    /** Sleeps the next delay; false when interrupted (the thread is being stopped). */
    boolean pause() {
        try {
            Thread.sleep(next());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
