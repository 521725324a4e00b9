package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

    private final FakeEngine live = FakeEngine.start("live");
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        live.close();
    }

    /** A port nothing listens on: bound, then closed. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
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
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config("", twoClusters("http://127.0.0.1:" + closedPort(), live.url() + "/metrics")));
        live.waiting = 5;
        gateway.server.scrapeNow();
        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(live.take().target()).isEqualTo("/v1/chat/completions");
        assertThat(gateway.metrics()).contains("grid_upstream_errors_total{").contains("kind=\"connect\"");
    }

    @Test
    void connectFailure_pinned_503RetryAfter5() throws Exception {
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config("", twoClusters("http://127.0.0.1:" + closedPort(), live.url() + "/metrics")));
        String tagged = "resp_east." + grid.gateway.routing.tag.ClusterDigest.of("east-dead") + "..abc";
        HttpResponse<String> answer = gateway.get("/v1/responses/" + tagged);
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("retry-after")).contains("5");
        assertThat(live.received).isEmpty();
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
        live.dispatcher = r -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new FakeEngine.Answer.Json(200, "{}");
        };
        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);
        release.countDown();
        assertThat(answer.statusCode()).isEqualTo(504);
        assertThat(answer.body()).contains("gateway_timeout");
    }

    @Test
    void newConversation_staysOnTheLocalSite() {
        FakeEngine west = FakeEngine.start("west");
        try {
            gateway = new GatewayHarness(dir, GatewayHarness.config("", """
                      - name: east
                        clusters:
                          - name: east-live
                            url: %s
                            models: [demo-model]
                      - name: west
                        clusters:
                          - name: west-a
                            url: %s
                            models: [demo-model]
                    """.formatted(live.url(), west.url())));
            live.waiting = 50;
            gateway.server.scrapeNow();
            live.dispatcher = r -> new FakeEngine.Answer.Json(200, "{\"id\":\"conv_1\",\"object\":\"conversation\"}");
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> answer = gateway.post("/v1/conversations", "{}");
                assertThat(answer.body()).contains("\"id\":\"conv_east.");
            }
            assertThat(west.received).isEmpty();
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
        assertThat(live.received).hasSize(1);
    }

    @Test
    void deleteAnswered204_noBodyRelayed() {
        gateway = new GatewayHarness(dir, GatewayHarness.config("", """
                  - name: east
                    clusters:
                      - name: east-live
                        url: %s
                        models: [demo-model]
                """.formatted(live.url())));
        live.dispatcher = r -> new FakeEngine.Answer.Json(204, "");
        String tagged = "conv_east." + grid.gateway.routing.tag.ClusterDigest.of("east-live") + "..c1";
        HttpResponse<String> answer =
                gateway.send(java.net.http.HttpRequest.newBuilder(gateway.uri("/v1/conversations/" + tagged))
                        .DELETE()
                        .build());
        assertThat(answer.statusCode()).isEqualTo(204);
        assertThat(answer.body()).isEmpty();
        assertThat(List.of(live.received.peek().target())).containsExactly("/v1/conversations/conv_c1");
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
        live.dispatcher = r -> new FakeEngine.Answer.Json(200, "{\"id\":\"resp_r1\",\"object\":\"response\"}");
        String created = gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}")
                .body();
        String signed =
                created.substring(created.indexOf("resp_east."), created.indexOf("\"", created.indexOf("resp_east.")));
        assertThat(signed).matches("resp_east\\." + digest + "\\.[0-9a-f]{16}\\.r1");
        assertThat(gateway.get("/v1/responses/" + signed).statusCode()).isEqualTo(200);
        List<String> bodies = java.util.stream.Stream.of(
                        "resp_east." + digest + ".0123456789abcdef.r1", // forged mac
                        "resp_east." + digest + "..r1", // unsigned, refused once a key is set
                        "resp_east.00000000..r1")
                .map(id -> gateway.get("/v1/responses/" + id))
                .peek(r -> assertThat(r.statusCode()).isEqualTo(404))
                .map(HttpResponse::body)
                .distinct()
                .toList();
        assertThat(bodies).hasSize(1);
    }
}
