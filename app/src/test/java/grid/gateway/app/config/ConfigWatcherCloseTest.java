package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the watcher (a step of the shutdown) while a poll is stuck in its {@code apply}: the close waits for it at
 * most {@link ConfigWatcher#CLOSE_WAIT}. The preemptive bound only fails a close that would wait without end.
 */
class ConfigWatcherCloseTest {
    @TempDir
    Path dir;

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void tearDown() {
        scheduler.shutdownNow();
    }

    @Test
    void close_aPollStuckInApply_returnsWithinItsBound_andNothingMoreIsApplied() throws Exception {
        Path config = write(dir, "config.yaml", MINIMAL);
        CountDownLatch applying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger applied = new AtomicInteger();
        ConfigWatcher watcher = new ConfigWatcher(
                config,
                snapshot -> {
                    applied.incrementAndGet();
                    applying.countDown();
                    awaitQuietly(release);
                },
                new ReloadListener() {},
                scheduler);
        write(config, "server: {port: 8081}\n" + MINIMAL);
        Thread poll = Thread.ofVirtual().start(watcher::pollNow);
        assertThat(applying.await(20, TimeUnit.SECONDS)).isTrue();
        try {
            assertTimeoutPreemptively(ConfigWatcher.CLOSE_WAIT.plus(Duration.ofSeconds(15)), watcher::close);
        } finally {
            release.countDown();
            poll.join(Duration.ofSeconds(20));
        }

        write(config, "server: {port: 8082}\n" + MINIMAL);
        watcher.pollNow();
        assertThat(applied).as("no poll after the close").hasValue(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
