package grid.gateway.app.load;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many scrape GETs may be open at once, across every cluster: each holds a socket, and a {@code metrics_dns} name
 * may resolve to thousands of addresses (a misnamed headless service), whose round would otherwise open a socket for
 * each at once, out of the descriptors the client listener's {@code max_connections: auto} keeps back. A GET beyond
 * the limit waits for one to end, at most {@code wait}, then fails its scrape.
 *
 * <p>Thread-safe.
 */
final class OpenGets {
    /**
     * A quarter of the descriptors {@code max_connections: auto} keeps back for everything that is not a client: a
     * grid's rounds rarely have this many pods at once, and those past it wait milliseconds for a healthy pod's GET.
     */
    static final int MAX = 128;

    private final int max;
    private final Duration wait;
    private final Semaphore permits;

    OpenGets(int max, Duration wait) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be positive: " + max);
        }
        this.max = max;
        this.wait = wait;
        this.permits = new Semaphore(max);
    }

    /** Whether a GET may open now, having waited at most the wait for another to end; {@link #leave} when it may. */
    boolean enter() throws InterruptedException {
        return permits.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** A GET that {@link #enter entered} ended. */
    void leave() {
        permits.release();
    }

    /** The most GETs open at once. */
    int max() {
        return max;
    }
}
