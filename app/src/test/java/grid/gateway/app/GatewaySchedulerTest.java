package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GatewaySchedulerTest {
    @Test
    void create_cancelledAlarm_leavesTheQueueAtOnce() {
        ScheduledThreadPoolExecutor scheduler = GatewayScheduler.create();
        try {
            ScheduledFuture<?> kept = scheduler.schedule(() -> {}, 1, TimeUnit.HOURS);
            for (int i = 0; i < 1_000; i++) {
                // What ResponseRelay does around every read: an idle-timeout alarm, cancelled when the read returns.
                scheduler.schedule(() -> {}, 300, TimeUnit.SECONDS).cancel(false);
            }

            assertThat(scheduler.getQueue()).containsExactly((Runnable) kept);
        } finally {
            scheduler.shutdownNow();
        }
    }
}
