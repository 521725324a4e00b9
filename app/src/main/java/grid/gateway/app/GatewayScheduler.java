package grid.gateway.app;

import grid.gateway.app.http.HeaderDeadline;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Makes the gateway's shared scheduler (queue scrapes, prefix expiry, idle-timeout alarms, header and body deadlines)
 * and schedules its periodic sweeps.
 *
 * <p>Stateless.
 */
final class GatewayScheduler {
    /** How often expired prefix entries and pooled connections idle too long are let go of. */
    private static final Duration EXPIRY_SWEEP = Duration.ofSeconds(10);

    private GatewayScheduler() {}

    /**
     * The shared scheduler. Cancelled tasks leave its queue at once: every answer's idle alarm is cancelled when the
     * answer ends, long before it is due, and by default a cancelled task stays queued, holding its answer, until its
     * delay (idle_timeout_ms, 300 s) ends. bench/steady-heap.sh measured that as about 290 bytes of heap a request,
     * held for the idle timeout: about 85 MB at 1,000 requests a second.
     */
    static ScheduledThreadPoolExecutor create() {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(
                2, Thread.ofPlatform().daemon().name("grid-scheduler-", 0).factory());
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    /**
     * Schedules on {@code scheduler} the sweeps that run for the gateway's life: the header deadline's at its own
     * period, the prefix memory's {@code expire} and the upstream pool's {@code closeIdle} every 10 s.
     */
    static void sweeps(
            ScheduledExecutorService scheduler, HeaderDeadline headerDeadline, Runnable expire, Runnable closeIdle) {
        long sweep = headerDeadline.sweepPeriod().toNanos();
        scheduler.scheduleWithFixedDelay(headerDeadline::sweep, sweep, sweep, TimeUnit.NANOSECONDS);
        long expiry = EXPIRY_SWEEP.toMillis();
        scheduler.scheduleWithFixedDelay(expire, expiry, expiry, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(closeIdle, expiry, expiry, TimeUnit.MILLISECONDS);
    }
}
