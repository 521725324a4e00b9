package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway on real sockets in front of two fake engines at two sites (issue 4's "must show"); {@link
 * ProxyOverTlsIntegrationTest} runs every test again with TLS on both hops.
 */
class ProxyIntegrationTest {
    @TempDir
    Path dir;

    private FakeEngine east;
    private FakeEngine west;
    private GatewayFixture gateway;

    @BeforeEach
    void start() {
        east = engine("east-a");
        west = engine("west-a");
        gateway = gateway(sites(false));
    }

    /** An engine for the tests: plain HTTP here. */
    FakeEngine engine(String name) {
        return FakeEngine.start(name);
    }

    /** The gateway in front of {@code sites}: plain HTTP here. */
    GatewayFixture gateway(String sites) {
        return new GatewayFixture(dir, config(sites));
    }

    /** The config with {@code sites}: no TLS here. */
    String config(String sites) {
        return GatewayFixture.config("", sites);
    }

    /** A raw connection to the gateway's client listener. */
    Socket connect(int port) throws java.io.IOException {
        return new Socket("127.0.0.1", port);
    }

    private String sites(boolean westDraining) {
        return """
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        models: [demo-model]
                  - name: west
                    clusters:
                      - name: west-a
                        url: %s
                        models: [demo-model]
                        draining: %s
                """.formatted(east.url(), west.url(), westDraining);
    }

    @AfterEach
    void stop() {
        gateway.close();
        east.close();
        west.close();
    }

    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

    @Test
    void chat_forwardedWithPathQueryAndBodyByteExact() throws Exception {
        HttpResponse<String> answer = gateway.post("/v1/chat/completions?x=1%2B2&y=a+b&e=", CHAT);
        assertThat(answer.statusCode()).isEqualTo(200);
        FakeEngine.Received received = receivedByEither();
        assertThat(received.target()).isEqualTo("/v1/chat/completions?x=1%2B2&y=a+b&e=");
        assertThat(received.body()).isEqualTo(CHAT);
        assertThat(answer.body()).contains("chat.completion");
    }

    @Test
    void hopByHopHeadersDropped_authorizationPassesThrough() throws Exception {
        gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                .header("Authorization", "Bearer sk-test")
                .header("x-api-key", "k")
                .header("X-Custom", "kept")
                .build());
        FakeEngine.Received received = receivedByEither();
        assertThat(received.headers().first(io.helidon.http.HeaderNames.create("authorization")))
                .contains("Bearer sk-test");
        assertThat(received.headers().first(io.helidon.http.HeaderNames.create("x-custom")))
                .contains("kept");
        assertThat(received.headers().first(io.helidon.http.HeaderNames.create("x-forwarded-for")))
                .contains("127.0.0.1");
    }

    @Test
    void storedResponse_tagRoundTripsToTheSameCluster() throws Exception {
        east.dispatcher = r -> new FakeEngine.Answer.Json(
                200,
                "{\"id\":\"resp_abc123\",\"object\":\"response\",\"output\":[{\"id\":\"msg_1\",\"type\":\"message\"}]}");
        west.dispatcher = east.dispatcher;
        HttpResponse<String> created = gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
        FakeEngine first = receivedBy();
        first.take(); // the create itself
        String site = first == east ? "east" : "west";
        String digest = grid.gateway.routing.tag.ClusterDigest.of(first.name);
        String tagged = "resp_" + site + "." + digest + "..abc123";
        assertThat(created.body()).contains("\"id\":\"" + tagged + "\"").contains("\"id\":\"msg_1\"");
        assertThat(created.headers().firstValueAsLong("content-length"))
                .hasValue(created.body().length());
        for (int i = 0; i < 5; i++) {
            assertThat(gateway.get("/v1/responses/" + tagged + "?include=x").statusCode())
                    .isEqualTo(200);
            assertThat(first.take().target()).isEqualTo("/v1/responses/resp_abc123?include=x");
        }
        gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/responses/" + tagged))
                .DELETE()
                .build());
        assertThat(first.take().method()).isEqualTo("DELETE");
        gateway.post("/v1/responses/" + tagged + "/cancel", "");
        assertThat(first.take().target()).isEqualTo("/v1/responses/resp_abc123/cancel");
        String follow = "{\"model\":\"demo-model\",\"previous_response_id\":\"" + tagged + "\",\"input\":\"more\"}";
        gateway.post("/v1/responses", follow);
        assertThat(first.take().body()).isEqualTo(follow.replace(tagged, "resp_abc123"));
    }

    @Test
    void unknownIds_badMacUnknownClusterMalformed_sameNotFoundBody() {
        String digest = grid.gateway.routing.tag.ClusterDigest.of("east-a");
        List<String> ids = List.of(
                "resp_north." + digest + "..abc", // a site not in the grid
                "resp_east.00000000..abc", // a cluster not in the grid
                "resp_EAST.x.y", // malformed
                "resp_plainengineid"); // untagged
        List<String> bodies = ids.stream()
                .map(id -> gateway.get("/v1/responses/" + id))
                .map(r -> {
                    assertThat(r.statusCode()).isEqualTo(404);
                    return r.body();
                })
                .distinct()
                .toList();
        assertThat(bodies).hasSize(1);
        assertThat(bodies.getFirst()).contains("\"error\"");
        assertThat(east.received).isEmpty();
        assertThat(west.received).isEmpty();
    }

    @Test
    void drainingCluster_pinnedRequest_503RetryAfter5() {
        String tagged = "resp_west." + grid.gateway.routing.tag.ClusterDigest.of("west-a") + "..abc";
        gateway.server.apply(gateway.snapshot(config(sites(true))));
        HttpResponse<String> answer = gateway.get("/v1/responses/" + tagged);
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("retry-after")).contains("5");
    }

    @Test
    void reloadRemovingCluster_itsTagsAnswer404() {
        String tagged = "resp_west." + grid.gateway.routing.tag.ClusterDigest.of("west-a") + "..abc";
        assertThat(gateway.get("/v1/responses/" + tagged).statusCode()).isEqualTo(200);
        gateway.server.apply(gateway.snapshot(config("""
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        models: [demo-model]
                """.formatted(east.url()))));
        assertThat(gateway.get("/v1/responses/" + tagged).statusCode()).isEqualTo(404);
    }

    @Test
    void bodyOverLimit_413InTheApisOwnShape() {
        String big = "{\"model\":\"demo-model\",\"prompt\":\"" + "x".repeat(5000) + "\"}";
        HttpResponse<String> openAi = gateway.post("/v1/completions", big);
        assertThat(openAi.statusCode()).isEqualTo(413);
        assertThat(openAi.body()).startsWith("{\"error\":{");
        HttpResponse<String> anthropic = gateway.post("/v1/messages", big);
        assertThat(anthropic.statusCode()).isEqualTo(413);
        assertThat(anthropic.body()).startsWith("{\"type\":\"error\"");
    }

    @Test
    void unknownModel_404_models_listed() {
        assertThat(gateway.post("/v1/chat/completions", CHAT.replace("demo-model", "nope"))
                        .statusCode())
                .isEqualTo(404);
        assertThat(gateway.get("/v1/models").body()).contains("\"id\":\"demo-model\"");
    }

    @Test
    void sse_eventsReachClientOneByOne() throws Exception {
        CountDownLatch secondEvent = new CountDownLatch(1);
        FakeEngine.Answer.Events events = new FakeEngine.Answer.Events(
                List.of("data: {\"n\":1}\n\n", "data: {\"n\":2}\n\ndata: [DONE]\n\n"),
                List.of(secondEvent),
                new CountDownLatch(1));
        east.dispatcher = r -> events;
        west.dispatcher = r -> events;
        HttpResponse<InputStream> answer = gateway.client.send(
                HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                        .POST(HttpRequest.BodyPublishers.ofString(CHAT.replace("}]}", "}],\"stream\":true}")))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        InputStream in = answer.body();
        // The first event arrives while the engine still holds the second back.
        assertThat(readUntil(in, "\n\n")).isEqualTo("data: {\"n\":1}\n\n");
        secondEvent.countDown();
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo("data: {\"n\":2}\n\ndata: [DONE]\n\n");
    }

    @Test
    void responsesStream_idsTaggedInsideEachEvent_modelTextLeftAlone() throws Exception {
        String created =
                "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_s1\"}}\n\n";
        String delta = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                + "\"delta\":\"see resp_fake\"}\n\n";
        FakeEngine.Answer.Events events = new FakeEngine.Answer.Events(
                List.of(created, delta), List.of(new CountDownLatch(0)), new CountDownLatch(1));
        east.dispatcher = r -> events;
        west.dispatcher = r -> events;
        HttpResponse<String> answer =
                gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
        FakeEngine engine = receivedBy();
        String tagged = "resp_" + (engine == east ? "east" : "west") + "."
                + grid.gateway.routing.tag.ClusterDigest.of(engine.name) + "..s1";
        assertThat(answer.body()).isEqualTo(created.replace("resp_s1", tagged) + delta);
    }

    @Test
    void clientDisconnectMidStream_closesUpstreamWithinASecond() throws Exception {
        CountDownLatch clientGone = new CountDownLatch(1);
        CountDownLatch aborted = new CountDownLatch(1);
        // Large events, so the engine cannot finish into socket buffers before the gateway lets go of it.
        String big = "data: {\"pad\":\"" + "x".repeat(8192) + "\"}\n\n";
        List<String> many = new java.util.ArrayList<>(java.util.Collections.nCopies(10_000, big));
        many.set(0, "data: {\"n\":0}\n\n");
        List<CountDownLatch> gates =
                new java.util.ArrayList<>(java.util.Collections.nCopies(9_999, new CountDownLatch(0)));
        gates.set(0, clientGone);
        FakeEngine.Answer.Events events = new FakeEngine.Answer.Events(many, gates, aborted);
        east.dispatcher = r -> events;
        west.dispatcher = r -> events;
        try (Socket socket = connect(gateway.server.port())) {
            String body = CHAT.replace("}]}", "}],\"stream\":true}");
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertThat(readUntil(socket.getInputStream(), "{\"n\":0}")).endsWith("{\"n\":0}");
        }
        clientGone.countDown();
        assertThat(aborted.await(1, TimeUnit.SECONDS))
                .as("upstream closed within a second")
                .isTrue();
    }

    @Test
    void metrics_exposeAffinityOutcomesAndUpstreamCounts() {
        gateway.post("/v1/chat/completions", CHAT);
        String metrics = gateway.metrics();
        assertThat(metrics).contains("grid_route_prefix_affinity_total{outcome=\"miss\"");
        assertThat(metrics).contains("grid_upstream_requests_total{");
    }

    private FakeEngine receivedBy() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (!east.received.isEmpty()) {
                return east;
            }
            if (!west.received.isEmpty()) {
                return west;
            }
            Thread.onSpinWait();
            TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new AssertionError("no engine received the request");
    }

    private FakeEngine.Received receivedByEither() throws InterruptedException {
        return receivedBy().take();
    }

    private static String readUntil(InputStream in, String end) throws java.io.IOException {
        StringBuilder text = new StringBuilder();
        int c;
        while (!text.toString().endsWith(end) && (c = in.read()) >= 0) {
            text.append((char) c);
        }
        return text.toString();
    }
}
