package grid.gateway.conformance.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.enginesim.EngineSettings;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability J.100, in short: far more concurrent clients than two one-slot engines can serve. Once an engine's
 * queue reaches {@code max_queue_depth} the gateway stops admitting it and sheds with 503 + {@code Retry-After: 5}
 * instead of queueing more; every other request is served; when the burst ends both clusters admit again within
 * 10 s and a request is served at once. Two forms: a short burst of 16 clients, and a sustained minute at
 * three times capacity: 6 clients that never pause but when told to retry later, against 2 slots.
 */
class OverloadTest {

    @TempDir
    Path dir;

    private LifecycleGrid grid;

    @AfterEach
    void stop() {
        grid.close();
    }

    @Test
    void burstBeyondCapacity_shedsWith503RetryAfter_thenAdmitsAgain() throws Exception {
        overload(16, Duration.ofSeconds(3));
    }

    @Test
    void sustainedMinuteAtThreeTimesCapacity_shedsWith503RetryAfter_losesNothing_thenAdmitsAgain() throws Exception {
        overload(6, Duration.ofSeconds(60));
    }

    /** {@code clients} clients loop for {@code burst}; every answer is a 200 or a 503 + Retry-After: 5. */
    private void overload(int clientCount, Duration burst) throws Exception {
        grid = new LifecycleGrid(dir);
        for (String name : List.of("east-a", "east-b")) {
            grid.engine(name, EngineSettings.builder().slots(1).decodeTokensPerSecond(60));
        }
        grid.writeText(config());
        grid.startGatewayOnSystemClock(5);
        AtomicBoolean running = new AtomicBoolean(true);
        Map<String, LongAdder> answers = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
        List<Future<?>> clients = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < clientCount; i++) {
                clients.add(threads.submit(() -> {
                    // Callable, so that the pause may throw InterruptedException
                    while (running.get()) {
                        HttpResponse<String> answer =
                                grid.gateway.post("/v1/chat/completions", LifecycleGrid.chat("Overload me. ", 2, ""));
                        String key = answer.statusCode() + " "
                                + answer.headers().firstValue("Retry-After").orElse("");
                        answers.computeIfAbsent(key, k -> new LongAdder()).increment();
                        if (key.equals("503 5")) {
                            Thread.sleep(20); // a client told to retry later does not spin
                        } else if (!key.equals("200 ")) {
                            unexpected.add(key + answer.body());
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(burst.toMillis());
            running.set(false);
            for (Future<?> client : clients) {
                client.get();
            }
        }

        assertThat(unexpected).isEmpty();
        assertThat(answers.get("200 ").sum()).isPositive();
        assertThat(answers.get("503 5"))
                .as("shed with 503 + Retry-After: 5: " + answers)
                .isNotNull();
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (grid.gateway.metric("grid_cluster_admitted", "east/east-a") < 1
                || grid.gateway.metric("grid_cluster_admitted", "east/east-b") < 1) {
            assertThat(System.nanoTime() - end)
                    .as("both clusters admit again within 10 s")
                    .isNegative();
            Thread.sleep(50);
        }
        assertThat(grid.gateway
                        .post("/v1/chat/completions", LifecycleGrid.chat("Calm again. ", 1, ""))
                        .statusCode())
                .isEqualTo(200);
    }

    private String config() {
        StringBuilder yaml = new StringBuilder("""
                server: {port: 0, admin_port: 0}
                gateway: {site: east}
                plugins:
                  grid_site_route:
                    load: {poll_interval_ms: 50, window_secs: 1}
                sites:
                  - name: east
                    clusters:
                """);
        grid.engines.forEach((name, engine) -> yaml.append("      - {name: ")
                .append(name)
                .append(", url: \"")
                .append(engine.url())
                .append("\", models: [")
                .append(LifecycleGrid.MODEL)
                .append("], max_queue_depth: 2}\n"));
        return yaml.toString();
    }
}
