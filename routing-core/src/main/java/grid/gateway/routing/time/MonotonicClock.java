package grid.gateway.routing.time;

/**
 * A monotonic clock in nanoseconds, for TTLs, windows and ejection periods.
 *
 * <p>Implementations are thread-safe. Values are meaningful only as differences ({@code b - a}), as with
 * {@link System#nanoTime()}: compare two readings with {@code b - a > 0}, never {@code b > a}, so that a clock near
 * the end of the {@code long} range still works.
 */
@FunctionalInterface
public interface MonotonicClock {
    /** The current reading in nanoseconds. */
    long nanoTime();
}
