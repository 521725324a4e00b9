package grid.gateway.conformance.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayServer;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability H.89–90: while clients keep sending, valid reloads add a cluster, shrink the prefix capacity and
 * remove a cluster, and invalid ones (broken YAML, a site name that is not a DNS-1123 label, duplicate cluster names,
 * a TTL past the monotonic clock, an unknown key, a missing file) are refused with the config in force still
 * serving. No request fails except by design: once the removal is applied, the removed cluster's ids answer 404.
 */
class ReloadUnderLoadTest {
    private static final int CLIENTS = 4;
    private static final String GATEWAY = "gateway:\n  site: east\n  config_poll_ms: 3600000\n";

    @TempDir
    Path dir;

    private LifecycleGrid grid;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong completed = new AtomicLong();
    /** Set before the reload removing east-b: from then on its ids may answer 404. */
    private final AtomicBoolean removalStarted = new AtomicBoolean();
    /** Set once that reload is applied: ids of east-b sent later must answer 404. */
    private final AtomicBoolean removalApplied = new AtomicBoolean();

    private final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
    private final AtomicInteger removedIdFound = new AtomicInteger();
    private final AtomicInteger removedIdNotFound = new AtomicInteger();

    @BeforeEach
    void start() {
        grid = new LifecycleGrid(dir);
        for (String name : List.of("east-a", "east-b", "east-c", "west-a")) {
            grid.engine(name);
        }
    }

    @AfterEach
    void stop() {
        running.set(false);
        grid.close();
    }

    @Test
    void reloadsUnderLoad_noRequestFailsExceptByDesign_refusedChangesKeepTheOldConfig() throws Exception {
        Map<String, List<String>> initial = Map.of("east", List.of("east-a", "east-b"), "west", List.of("west-a"));
        grid.writeConfig(GATEWAY, initial);
        GatewayServer gateway = grid.startGateway(3);
        String onEastA = stored("east-a", "east-b");
        String onEastB = stored("east-b", "east-a");
        grid.queues(Map.of("east-a", 0, "east-b", 0, "west-a", 0));
        double applied = grid.gateway.metric("grid_config_reloads_total", "applied");
        double refused = grid.gateway.metric("grid_config_reloads_total", "refused");

        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            int client = i;
            loops.add(clients.submit(() -> traffic(client, onEastA, onEastB)));
        }
        String grown = GATEWAY + "plugins:\n  grid_site_route:\n    prefix_affinity: {capacity: 64}\n";
        Map<String, List<String>> withC =
                Map.of("east", List.of("east-a", "east-b", "east-c"), "west", List.of("west-a"));
        reload(() -> grid.writeConfig(grown, withC));
        reload(() -> grid.writeText("sites: [\n  - name: east\n"));
        reload(() -> grid.writeConfig(GATEWAY, Map.of("East_1", List.of("east-a"))));
        reload(() -> grid.writeConfig(GATEWAY, Map.of("east", List.of("east-a", "east-a"))));
        reload(() -> grid.writeConfig(
                GATEWAY + "plugins:\n  grid_site_route:\n    prefix_affinity: {ttl_secs: 9223372037}\n", withC));
        reload(() -> grid.writeConfig(GATEWAY.replace("site:", "sight:"), withC));
        reload(() -> {
            try {
                java.nio.file.Files.delete(grid.configFile);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String shrunk = GATEWAY + "plugins:\n  grid_site_route:\n    prefix_affinity: {capacity: 4}\n";
        reload(() -> grid.writeConfig(shrunk, withC));
        for (String cluster : List.of("east/east-a", "east/east-b", "east/east-c", "west/west-a")) {
            assertThat(grid.gateway.metric("grid_prefix_index_entries", cluster))
                    .as(cluster)
                    .isLessThanOrEqualTo(4);
        }
        EngineSimulator eastB = grid.engines.get("east-b");
        removalStarted.set(true);
        reload(() -> grid.writeConfig(shrunk, Map.of("east", List.of("east-a", "east-c"), "west", List.of("west-a"))));
        removalApplied.set(true);
        int atRemoval = eastB.requestCount();
        awaitProgress(60);
        running.set(false);
        for (Future<?> loop : loops) {
            loop.get();
        }
        clients.close();

        assertThat(unexpected).isEmpty();
        assertThat(completed.get()).isGreaterThan(200);
        assertThat(removedIdFound.get())
                .as("east-b ids answered before the removal")
                .isPositive();
        assertThat(removedIdNotFound.get())
                .as("east-b ids answered 404 after it")
                .isPositive();
        // What east-b received after its removal was at most what was already in flight then.
        assertThat(eastB.requestCount() - atRemoval).isLessThanOrEqualTo(CLIENTS);
        assertThat(grid.gateway.metric("grid_config_reloads_total", "applied") - applied)
                .isEqualTo(3);
        assertThat(grid.gateway.metric("grid_config_reloads_total", "refused") - refused)
                .isEqualTo(6);
        assertThat(grid.gateway.metric("grid_prefix_index_entries", "east/east-a"))
                .isLessThanOrEqualTo(4);
        assertThat(gateway.requestsInFlight()).isZero();
    }

    /** One client: chats with a few recurring prompts, and reads both stored responses, until told to stop. */
    private void traffic(int client, String onEastA, String onEastB) {
        for (int n = 0; running.get(); n++) {
            String prompt = "Client " + client + " topic " + (n % 5) + " keeps talking about reloads. ";
            check(grid.gateway.post("/v1/chat/completions", LifecycleGrid.chat(prompt, 12, "")), "chat", 200);
            check(grid.gateway.get("/v1/responses/" + onEastA), "east-a id", 200);
            boolean appliedAtSend = removalApplied.get();
            HttpResponse<String> b = grid.gateway.get("/v1/responses/" + onEastB);
            if (b.statusCode() == 200 && !appliedAtSend) {
                removedIdFound.incrementAndGet();
            } else if (b.statusCode() == 404 && removalStarted.get()) {
                removedIdNotFound.incrementAndGet();
            } else {
                unexpected.add("east-b id: " + b.statusCode() + " " + b.body());
            }
            completed.addAndGet(3);
        }
    }

    private void check(HttpResponse<String> answer, String what, int status) {
        if (answer.statusCode() != status) {
            unexpected.add(what + ": " + answer.statusCode() + " " + answer.body());
        }
    }

    /** Changes the file, lets traffic run, polls it once (as the schedule would), lets traffic run again. */
    private void reload(Runnable change) {
        awaitProgress(12);
        change.run();
        grid.gateway.server.reloadNow();
        awaitProgress(12);
    }

    private void awaitProgress(long requests) {
        long target = completed.get() + requests;
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (completed.get() < target) {
            if (System.nanoTime() - end > 0 || !unexpected.isEmpty()) {
                throw new AssertionError("traffic stalled or failed: " + unexpected);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private String stored(String on, String other) {
        grid.queues(Map.of(on, 0, other, 5, "west-a", 5));
        HttpResponse<String> created =
                grid.gateway.post("/v1/responses", "{\"model\":\"" + LifecycleGrid.MODEL + "\",\"input\":\"stored\"}");
        assertThat(created.statusCode()).isEqualTo(200);
        String id = LifecycleGrid.responseId(created.body());
        assertThat(id).contains("." + ClusterDigest.of(on) + ".");
        return id;
    }
}
