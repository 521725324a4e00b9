package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.time.MonotonicClock;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Enforces {@code server.header_timeout_ms}: a connection whose request headers have not all arrived that long after
 * its request line is closed (slowloris). Helidon 4.5 has no such deadline: its idle sweep never interrupts a
 * connection past the request line, and the listener's read timeout is not applied to accepted sockets.
 *
 * <pre>
 *   request line read ──prologue()──> open[thread] = now
 *   headers read      ──headers()───> remove              (in time: the request goes on)
 *   sweep()           ──now − start > timeout──> remove, interrupt the connection's thread
 *                                                 (its blocked channel read closes the socket)
 *                     ──thread ended───────────> remove, not counted (a head the parser refused, a client gone)
 * </pre>
 *
 * <p>Thread-safe. Helidon calls the listener on each connection's own virtual thread, the thread that then blocks
 * reading the headers; {@link #sweep()} runs on the gateway's scheduler.
 */
public final class HeaderDeadline implements Http1ConnectionListener {
    private final MonotonicClock clock;
    private final long timeoutNanos;
    private final Runnable expired;
    private final ConcurrentMap<Thread, Long> open = new ConcurrentHashMap<>();

    /**
     * @param clock the monotonic clock deadlines run on
     * @param timeout longest time from the end of the request line to the end of the headers
     * @param expired told once per connection closed by the deadline (for metrics)
     */
    public HeaderDeadline(MonotonicClock clock, Duration timeout, Runnable expired) {
        this.clock = requireNonNull(clock, "clock");
        this.timeoutNanos = requireNonNull(timeout, "timeout").toNanos();
        this.expired = requireNonNull(expired, "expired");
    }

    /** How often {@link #sweep()} should run: a quarter of the timeout, between 50 ms and 1 s. */
    public Duration sweepPeriod() {
        return Duration.ofNanos(Math.clamp(timeoutNanos / 4, 50_000_000L, 1_000_000_000L));
    }

    @Override
    public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
        open.put(Thread.currentThread(), clock.nanoTime());
    }

    @Override
    public void headers(ConnectionContext ctx, Headers headers) {
        if (open.remove(Thread.currentThread()) == null) {
            // The sweep got there first: the thread is (or is about to be) interrupted; end the connection cleanly.
            throw new CloseConnectionException("request headers arrived after header_timeout_ms");
        }
        ConnectionBuffer.headersRead(ctx);
    }

    /** Closes every connection whose headers are overdue. */
    public void sweep() {
        long now = clock.nanoTime();
        open.forEach((thread, start) -> {
            if (!thread.isAlive()) {
                // Its connection ended before its headers did: a head Helidon's parser refused (answered at once,
                // then closed), or a client that left. Nothing to close, nothing timed out.
                open.remove(thread, start);
            } else if (now - start > timeoutNanos && open.remove(thread, start)) {
                // Counted before the interrupt closes the connection: whoever sees the connection end then also
                // sees it counted.
                expired.run();
                thread.interrupt();
            }
        });
    }

    /** Connections between their request line and the end of their headers now (for tests). */
    public int inProgress() {
        return open.size();
    }

    @Override
    public String toString() {
        return "HeaderDeadline[" + Duration.ofNanos(timeoutNanos) + ", " + open.size() + " open]";
    }
}
