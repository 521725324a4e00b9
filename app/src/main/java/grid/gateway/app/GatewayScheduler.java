package grid.gateway.app;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * Makes the gateway's shared scheduler: queue scrapes, prefix expiry, idle-timeout alarms, header and body deadlines.
 *
 * <p>Stateless.
 */
final class GatewayScheduler {
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
}
