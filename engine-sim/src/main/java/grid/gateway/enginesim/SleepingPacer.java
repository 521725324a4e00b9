package grid.gateway.enginesim;

import java.time.Duration;

/**
 * The real {@link Pacer}: sleeps the calling (virtual) thread for the whole duration.
 *
 * <p>Thread-safe and stateless.
 */
final class SleepingPacer implements Pacer {
    static final SleepingPacer INSTANCE = new SleepingPacer();

    private SleepingPacer() {}

    @Override
    public void pause(Duration duration) throws InterruptedException {
        if (duration.isPositive()) {
            Thread.sleep(duration);
        }
    }

    @Override
    public String toString() {
        return "SleepingPacer";
    }
}
