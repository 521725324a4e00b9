package grid.gateway.conformance.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayServer;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability H.88: a gateway restarted with the same config and tag key keeps pinning the ids it tagged before
 * (tags need only the config and the key), and starts with an empty prefix memory, so a prompt that was a hit
 * before the restart now routes by load, without errors.
 */
class RestartTest {
    private static final String LONG_PROMPT =
            LifecycleGrid.chat("A restart forgets prefixes, never stored ids. ", 40, "");

    @TempDir
    Path dir;

    private LifecycleGrid grid;
    private EngineSimulator eastA;
    private EngineSimulator westA;

    @BeforeEach
    void start() throws Exception {
        grid = new LifecycleGrid(dir);
        eastA = grid.engine("east-a");
        westA = grid.engine("west-a");
        Files.writeString(dir.resolve("tag-key"), "restart-test-key-0123456789abcdef\n");
        grid.writeConfig(
                "gateway:\n  site: east\n  tag_key_path: tag-key\n",
                Map.of("east", List.of("east-a"), "west", List.of("west-a")));
    }

    @AfterEach
    void stop() {
        grid.close();
    }

    @Test
    void restart_idsTaggedBeforeStillPin_prefixMemoryStartsEmpty() throws Exception {
        GatewayServer before = grid.startGateway(1);
        String eastId = createResponseOn(before, eastA, westA);
        String westId = createResponseOn(before, westA, eastA);
        grid.queues(Map.of("east-a", 0, "west-a", 3));
        assertThat(grid.gateway.post("/v1/chat/completions", LONG_PROMPT).statusCode())
                .isEqualTo(200);
        assertThat(grid.gateway.post("/v1/chat/completions", LONG_PROMPT).statusCode())
                .isEqualTo(200);
        assertThat(grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"hit\""))
                .isEqualTo(1);

        GatewayServer after = grid.startGateway(2); // closes the first: the process is gone, memory with it
        // The queue that made the prompt stick to east-a is gone too: by load alone it now goes to west-a.
        grid.queues(Map.of("east-a", 3, "west-a", 0));
        drain(eastA);
        drain(westA);

        assertPinnedTo(eastA, grid.gateway.get("/v1/responses/" + eastId), "/v1/responses/" + engineId(eastId));
        assertPinnedTo(westA, grid.gateway.get("/v1/responses/" + westId), "/v1/responses/" + engineId(westId));
        HttpResponse<String> continued = grid.gateway.post(
                "/v1/responses",
                "{\"model\":\"" + LifecycleGrid.MODEL + "\",\"input\":\"and then?\",\"previous_response_id\":\""
                        + westId + "\"}");
        RecordedRequest atWest = assertPinnedTo(westA, continued, "/v1/responses");
        assertThat(atWest.body()).contains("\"previous_response_id\":\"" + engineId(westId) + "\"");
        assertThat(LifecycleGrid.responseId(continued.body())).startsWith(tagPrefix(westId));

        assertThat(grid.gateway.metric("grid_prefix_index_entries", "west/west-a"))
                .isZero();
        assertThat(grid.gateway.metric("grid_prefix_index_entries", "east/east-a"))
                .isZero();
        HttpResponse<String> again = grid.gateway.post("/v1/chat/completions", LONG_PROMPT);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(westA.takeRequest(Duration.ofSeconds(5)).orElseThrow().path())
                .isEqualTo("/v1/chat/completions");
        assertThat(grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"hit\""))
                .isZero();
        assertThat(grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"miss\""))
                .isEqualTo(1);
        assertThat(grid.gateway.metric("grid_route_pinned_total", "outcome=\"routed\""))
                .isEqualTo(3);
    }

    /** Creates a stored response on {@code on} (the other cluster made busier), returning its tagged id. */
    private String createResponseOn(GatewayServer gateway, EngineSimulator on, EngineSimulator other)
            throws InterruptedException {
        grid.queues(Map.of(on.name(), 0, other.name(), 5));
        drain(on);
        HttpResponse<String> created =
                grid.gateway.post("/v1/responses", "{\"model\":\"" + LifecycleGrid.MODEL + "\",\"input\":\"keep me\"}");
        assertThat(created.statusCode()).isEqualTo(200);
        assertThat(on.takeRequest(Duration.ofSeconds(5))).isPresent();
        return LifecycleGrid.responseId(created.body());
    }

    private static RecordedRequest assertPinnedTo(EngineSimulator engine, HttpResponse<String> answer, String path)
            throws InterruptedException {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        RecordedRequest received = engine.takeRequest(Duration.ofSeconds(5)).orElseThrow();
        assertThat(received.path()).isEqualTo(path);
        return received;
    }

    private static void drain(EngineSimulator engine) throws InterruptedException {
        while (engine.takeRequest(Duration.ZERO).isPresent()) {
            // forget what came before
        }
    }

    /** {@code resp_<site>.<cluster>.<mac>.<id>} → {@code resp_<id>}. */
    private static String engineId(String tagged) {
        return "resp_" + tagged.substring(tagged.lastIndexOf('.') + 1);
    }

    private static String tagPrefix(String tagged) {
        return tagged.substring(0, tagged.lastIndexOf('.') + 1);
    }
}
