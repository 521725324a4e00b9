package grid.gateway.routing.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test fixture: a clock that moves only when a test advances it. Starts near the top of the {@code long} range by
 * default, so code that compares readings with {@code >} instead of differences fails its tests.
 *
 * <p>Thread-safe.
 */
public final class ManualClock implements MonotonicClock {
    private final AtomicLong now;

    /** A clock whose first reading is {@code start}. */
    public ManualClock(long start) {
        this.now = new AtomicLong(start);
    }

    /** A clock a little more than a minute before the {@code long} range wraps. */
    public ManualClock() {
        this(Long.MAX_VALUE - Duration.ofSeconds(65).toNanos());
    }

    @Override
    public long nanoTime() {
        return now.get();
    }

    /** Moves the clock forward. */
    public void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    /** Moves the clock forward by {@code seconds}. */
    public void advanceSeconds(long seconds) {
        advance(Duration.ofSeconds(seconds));
    }
}
