package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.Fault;
import grid.gateway.routing.tag.ClusterDigest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Live reload from the config file, the idle timeout between chunks, and what one candidate counts. */
class ReloadAndTimeoutIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"max_tokens\":8," + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

    @TempDir
    Path dir;

    /** Answers as long as a stream is let run (up to 100,000 tokens); plain chats here ask for 8. */
    private final EngineSimulator east = EngineSettings.builder()
            .name("east-a")
            .model("demo-model")
            .instant()
            .answerTokens(100_000)
            .start();

    private final EngineSimulator west = GatewayHarness.engine("west-a");
    private final HttpClient client = HttpClient.newHttpClient();
    private GatewayHarness gateway;
    private GatewayServer server;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        east.close();
        west.close();
    }

    private String config(boolean withWest, String upstream) {
        String westSite = withWest ? """
                  - name: west
                    clusters:
                      - name: west-a
                        url: %s
                        models: [demo-model]
                """.formatted(west.url()) : "";
        return GatewayHarness.config(upstream, """
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        models: [demo-model]
                %s""".formatted(east.url(), westSite));
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private GatewayServer startFromFile(Path file) {
        gateway = GatewayHarness.fromFile(file);
        return gateway.server;
    }

    @Test
    void reload_validChangeApplied_invalidChangeRefusedAndOldConfigServes() throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, config(true, ""));
        server = startFromFile(file);
        // A response west-a stores, so that 200 is the engine's and a 404 can only be the gateway's.
        String westTag =
                "/v1/responses/resp_west." + ClusterDigest.of("west-a") + ".." + GatewayHarness.storedResponse(west);
        assertThat(get(westTag).statusCode()).isEqualTo(200);

        Files.writeString(file, config(true, "") + "\nbogus_key: 1\n");
        server.reloadNow();
        assertThat(get(westTag).statusCode())
                .as("invalid reload keeps the old config")
                .isEqualTo(200);

        Files.writeString(file, config(false, ""));
        server.reloadNow();
        assertThat(get(westTag).statusCode()).as("west-a left the grid").isEqualTo(404);
        String metrics = client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics)
                .containsPattern("grid_config_reloads_total\\{result=\"applied\"[^}]*} 1\\.0")
                .containsPattern("grid_config_reloads_total\\{result=\"refused\"[^}]*} 1\\.0");
    }

    @Test
    void invalidConfigAtStart_refusedWithKeyPath() throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, config(true, "").replace("name: east\n", "name: East\n"));
        assertThatThrownBy(() -> startFromFile(file)).hasMessageContaining("sites[0].name");
    }

    @Test
    void idleTimeoutBetweenChunks_endsTheStreamAbnormallyAndClosesUpstream() throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, config(false, """
                  upstream:
                    idle_timeout_ms: 300
                """));
        server = startFromFile(file);
        CountDownLatch never = new CountDownLatch(1);
        // After the first event the engine falls silent; let go, it goes on writing: it must find the connection
        // closed.
        east.failNext(1, Fault.holdBeforeEvent(1, never));
        HttpResponse<InputStream> answer = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v1/chat/completions"))
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"model\":\"demo-model\",\"stream\":true,\"messages\":[{\"role\":\"user\","
                                        + "\"content\":\"hello\"}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        // The client gets the first event, then the stream breaks: it never ends cleanly.
        assertThatThrownBy(() -> answer.body().readAllBytes()).isInstanceOf(IOException.class);
        never.countDown();
        assertThat(east.awaitAbandonedAnswer(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void oneAdmittedCandidate_countsNoAffinityOutcome() throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, config(false, ""));
        server = startFromFile(file);
        String before = affinityLines();
        for (int i = 0; i < 3; i++) {
            client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v1/chat/completions"))
                            .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        assertThat(east.requestCount()).isEqualTo(3);
        assertThat(affinityLines()).isEqualTo(before);
    }

    private String affinityLines() throws Exception {
        String metrics = client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return metrics.lines()
                .filter(l -> l.startsWith("grid_route_prefix_affinity_total"))
                .sorted()
                .toList()
                .toString();
    }
}
