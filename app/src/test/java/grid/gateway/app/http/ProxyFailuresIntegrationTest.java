package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.RefusingPort;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.Fault;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Unreachable clusters, timeouts, the provider role and new conversations, on real sockets. */
class ProxyFailuresIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

    @TempDir
    Path dir;

    private final EngineSimulator live = GatewayHarness.engine("live");
    private final RefusingPort dead = new RefusingPort();
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        live.close();
        dead.close();
    }

    private String twoClusters(String deadUrl, String deadMetrics) {
        return """
                  - name: east
                    clusters:
                      - name: east-dead
                        url: %s
                        metrics_url: %s
                        models: [demo-model]
                      - name: east-live
                        url: %s
                        models: [demo-model]
                """.formatted(deadUrl, deadMetrics, live.url());
    }

    @Test
    void connectFailure_unpinned_triesTheNextCandidate() throws Exception {
        // The dead cluster's metrics come from the live engine and report an empty queue, so it is tried first.
        gateway = new GatewayHarness(dir, GatewayHarness.config("", twoClusters(dead.url(), live.url() + "/metrics")));
        live.setQueueDepth(5);
        gateway.server.scrapeNow();
        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(GatewayHarness.take(live).target()).isEqualTo("/v1/chat/completions");
        assertThat(gateway.metric("grid_upstream_errors_total", "cluster=\"east/east-dead\",kind=\"connect\""))
                .isEqualTo(1);
    }

    @Test
    void connectFailure_pinned_503RetryAfter5() throws Exception {
        gateway = new GatewayHarness(dir, GatewayHarness.config("", twoClusters(dead.url(), live.url() + "/metrics")));
        String tagged = "resp_east." + grid.gateway.routing.tag.ClusterDigest.of("east-dead") + "..abc";
        HttpResponse<String> answer = gateway.get("/v1/responses/" + tagged);
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("retry-after")).contains("5");
        assertThat(live.requestCount()).isZero();
    }

    @Test
    void firstByteTimeout_504() throws Exception {
        gateway = new GatewayHarness(dir, GatewayHarness.config("""
                  upstream:
                    first_byte_timeout_ms: 300
                """, """
                  - name: east
                    clusters:
                      - name: east-live
                        url: %s
                        models: [demo-model]
                """.formatted(live.url())));
        CountDownLatch release = new CountDownLatch(1);
        live.failNext(1, Fault.holdFirstByte(release));
        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);
        release.countDown();
        assertThat(answer.statusCode()).isEqualTo(504);
        assertThat(answer.body()).contains("gateway_timeout");
    }

    @Test
    void newConversation_staysOnTheLocalSite() {
        EngineSimulator west = GatewayHarness.engine("west");
        try {
            gateway = new GatewayHarness(
                    dir,
                    GatewayHarness.config(
                            "",
                            GatewayHarness.site("east", Map.of("east-live", live))
                                    + GatewayHarness.site("west", Map.of("west-a", west))));
            live.setQueueDepth(50);
            gateway.server.scrapeNow();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> answer = gateway.post("/v1/conversations", "{}");
                assertThat(answer.body()).contains("\"id\":\"conv_east.");
            }
            assertThat(west.requestCount()).isZero();
        } finally {
            west.close();
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/responses/resp_x",
                "/v1/chat%2Fcompletions",
                "/v1/./chat/completions",
                "/v1/x/../chat/completions",
                "/v1/chat/completions/",
                "//v1/chat/completions",
                "/v1//chat/completions",
                "/v1/models",
                "/v1/completions"
            })
    void provider_refusesEveryPathButTheAllowedOnes(String path) {
        gateway = new GatewayHarness(dir, GatewayHarness.config("""
                  role: provider
                  allowed_paths: [/v1/chat/completions]
                """, """
                  - name: east
                    clusters:
                      - name: east-live
                        url: %s
                        models: [demo-model]
                """.formatted(live.url())));
        assertThat(gateway.post(path, CHAT).statusCode()).isEqualTo(404);
        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
        assertThat(live.requestCount()).isEqualTo(1);
    }

    @Test
    void deleteAnswered204_noBodyRelayed() throws Exception {
        // No engine API answers 204, so a scripted upstream writes it.
        try (ScriptedUpstream upstream = new ScriptedUpstream()) {
            upstream.script = e -> e.write("HTTP/1.1 204 No Content\r\n\r\n");
            gateway = new GatewayHarness(
                    dir, GatewayHarness.config("", GatewayHarness.siteAt("east", Map.of("east-live", upstream.url()))));
            String tagged = "conv_east." + grid.gateway.routing.tag.ClusterDigest.of("east-live") + "..c1";
            HttpResponse<String> answer =
                    gateway.send(java.net.http.HttpRequest.newBuilder(gateway.uri("/v1/conversations/" + tagged))
                            .DELETE()
                            .build());
            assertThat(answer.statusCode()).isEqualTo(204);
            assertThat(answer.body()).isEmpty();
            assertThat(upstream.take().head).startsWith("DELETE /v1/conversations/conv_c1 HTTP/1.1\r\n");
        }
    }

    @Test
    void withTagKey_forgedMacAndUnsignedTag_sameNotFoundAsUnknownIds() throws IOException {
        Path key = dir.resolve("tag-key");
        java.nio.file.Files.writeString(key, "tag-key-0123456789abcdef\n");
        gateway = new GatewayHarness(dir, GatewayHarness.config("""
                  tag_key_path: %s
                """.formatted(key), """
                  - name: east
                    clusters:
                      - name: east-live
                        url: %s
                        models: [demo-model]
                """.formatted(live.url())));
        String digest = grid.gateway.routing.tag.ClusterDigest.of("east-live");
        String created = gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}")
                .body();
        String signed =
                created.substring(created.indexOf("resp_east."), created.indexOf("\"", created.indexOf("resp_east.")));
        assertThat(signed).matches("resp_east\\." + digest + "\\.[0-9a-f]{16}\\.[0-9a-f]{16}");
        String stored = signed.substring(signed.lastIndexOf('.') + 1);
        assertThat(gateway.get("/v1/responses/" + signed).statusCode()).isEqualTo(200);
        List<String> bodies = java.util.stream.Stream.of(
                        "resp_east." + digest + ".0123456789abcdef." + stored, // forged mac
                        "resp_east." + digest + ".." + stored, // unsigned, refused once a key is set
                        "resp_east.00000000.." + stored)
                .map(id -> gateway.get("/v1/responses/" + id))
                .peek(r -> assertThat(r.statusCode()).isEqualTo(404))
                // Each answer carries its own request id; nothing else may tell the ids apart.
                .map(r -> r.body().replaceFirst(",\"request_id\":\"req-\\d+\"", ""))
                .distinct()
                .toList();
        assertThat(bodies).hasSize(1);
    }
}
