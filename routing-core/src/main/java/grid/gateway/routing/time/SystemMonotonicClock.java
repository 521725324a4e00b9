package grid.gateway.routing.time;

/**
 * The production clock: {@link System#nanoTime()}.
 *
 * <p>Thread-safe and stateless.
 */
public final class SystemMonotonicClock implements MonotonicClock {
    /** The one instance; it holds no state. */
    public static final SystemMonotonicClock INSTANCE = new SystemMonotonicClock();

    private SystemMonotonicClock() {}

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}
