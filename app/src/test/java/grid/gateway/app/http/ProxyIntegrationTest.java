package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.Fault;
import grid.gateway.enginesim.RecordedRequest;
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
 * The gateway on real sockets in front of two simulated engines at two sites; {@link
 * ProxyOverTlsIntegrationTest} runs every test again with TLS on both hops.
 */
class ProxyIntegrationTest {
    @TempDir
    Path dir;

    private EngineSimulator east;
    private EngineSimulator west;
    private GatewayHarness gateway;

    @BeforeEach
    void start() {
        east = engine("east-a");
        west = engine("west-a");
        gateway = gateway(sites(false));
    }

    /** An engine for the tests: plain HTTP here. */
    EngineSimulator engine(String name) {
        return secured(GatewayHarness.engineSettings(name)).start();
    }

    /** An engine's settings with TLS added: none here. */
    EngineSettings.Builder secured(EngineSettings.Builder settings) {
        return settings;
    }

    /** The gateway in front of {@code sites}: plain HTTP here. */
    GatewayHarness gateway(String sites) {
        return new GatewayHarness(dir, config(sites));
    }

    /** The config with {@code sites}: no TLS here. */
    String config(String sites) {
        return GatewayHarness.config("", sites);
    }

    /** A raw connection to the gateway's client listener. */
    Socket connect(int port) throws java.io.IOException {
        return new Socket("127.0.0.1", port);
    }

    private String sites(boolean westDraining) {
        return GatewayHarness.oneScrapedEngine(east.url()) + """
                  - name: west
                    clusters:
                      - name: west-a
                        url: %s
                        models: [demo-model]
                        draining: %s
                """.formatted(west.url(), westDraining);
    }

    /** An engine whose answers run to a million tokens: a stream that goes on until someone cuts it. */
    private EngineSimulator endless(String name) {
        return secured(EngineSettings.builder()
                        .name(name)
                        .model("demo-model")
                        .instant()
                        .answerTokens(1_000_000))
                .start();
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
        RecordedRequest received = receivedByEither();
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
        RecordedRequest received = receivedByEither();
        assertThat(received.header("authorization")).contains("Bearer sk-test");
        assertThat(received.header("x-custom")).contains("kept");
        assertThat(received.header("x-forwarded-for")).contains("127.0.0.1");
    }

    @Test
    void storedResponse_tagRoundTripsToTheSameCluster() throws Exception {
        HttpResponse<String> created = gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
        EngineSimulator first = receivedBy();
        GatewayHarness.take(first); // the create itself
        String site = first == east ? "east" : "west";
        String digest = grid.gateway.routing.tag.ClusterDigest.of(first.name());
        String prefix = "resp_" + site + "." + digest + "..";
        int at = created.body().indexOf("\"id\":\"" + prefix) + 6;
        String tagged = created.body().substring(at, created.body().indexOf('"', at));
        String stored = "resp_" + tagged.substring(prefix.length());
        assertThat(tagged).matches(java.util.regex.Pattern.quote(prefix) + "[0-9a-f]{16}");
        // Output items keep the engine's own ids: only response ids are tagged.
        assertThat(created.body()).containsPattern("\"id\":\"msg_[0-9a-f]+\"");
        assertThat(created.headers().firstValueAsLong("content-length"))
                .hasValue(created.body().length());
        for (int i = 0; i < 5; i++) {
            assertThat(gateway.get("/v1/responses/" + tagged + "?include=x").statusCode())
                    .isEqualTo(200);
            assertThat(GatewayHarness.take(first).target()).isEqualTo("/v1/responses/" + stored + "?include=x");
        }
        gateway.post("/v1/responses/" + tagged + "/cancel", "");
        assertThat(GatewayHarness.take(first).target()).isEqualTo("/v1/responses/" + stored + "/cancel");
        String follow = "{\"model\":\"demo-model\",\"previous_response_id\":\"" + tagged + "\",\"input\":\"more\"}";
        gateway.post("/v1/responses", follow);
        assertThat(GatewayHarness.take(first).body()).isEqualTo(follow.replace(tagged, stored));
        gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/responses/" + tagged))
                .DELETE()
                .build());
        assertThat(GatewayHarness.take(first).method()).isEqualTo("DELETE");
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
                    // Each answer carries its own request id; nothing else may tell the ids apart.
                    return r.body().replaceFirst(",\"request_id\":\"req-\\d+\"", "");
                })
                .distinct()
                .toList();
        assertThat(bodies).hasSize(1);
        assertThat(bodies.getFirst()).contains("\"error\"");
        assertThat(east.requestCount()).isZero();
        assertThat(west.requestCount()).isZero();
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
        // Stored on west-a, so that 200 is the engine's and the 404 after the reload can only be the gateway's.
        String tagged = "resp_west." + grid.gateway.routing.tag.ClusterDigest.of("west-a") + ".."
                + GatewayHarness.storedResponse(west, gateway.client);
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
        east.failNext(1, Fault.holdBeforeEvent(1, secondEvent));
        west.failNext(1, Fault.holdBeforeEvent(1, secondEvent));
        HttpResponse<InputStream> answer = gateway.client.send(
                HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                        .POST(HttpRequest.BodyPublishers.ofString(CHAT.replace("}]}", "}],\"stream\":true}")))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        InputStream in = answer.body();
        // The first event arrives while the engine still holds the second back.
        assertThat(readUntil(in, "\n\n"))
                .startsWith("data: {")
                .contains("\"object\":\"chat.completion.chunk\"")
                .endsWith("}\n\n");
        secondEvent.countDown();
        String rest = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        assertThat(rest).startsWith("data: {").endsWith("\n\ndata: [DONE]\n\n");
    }

    @Test
    void responsesStream_idsTaggedInsideEachEvent_modelTextLeftAlone() throws Exception {
        String created =
                "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_s1\"}}\n\n";
        String delta = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
                + "\"delta\":\"see resp_fake\"}\n\n";
        // Model text with an id in it is nothing a simulated engine writes (it echoes words), so a script does.
        try (ScriptedUpstream upstream = new ScriptedUpstream()) {
            upstream.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + chunk(created) + chunk(delta) + "0\r\n\r\n");
            gateway.server.apply(gateway.snapshot(config(GatewayHarness.oneEngine(upstream.url()))));
            HttpResponse<String> answer =
                    gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            String tagged = "resp_east." + grid.gateway.routing.tag.ClusterDigest.of("east-a") + "..s1";
            assertThat(answer.body()).isEqualTo(created.replace("resp_s1", tagged) + delta);
        }
    }

    private static String chunk(String text) {
        return Integer.toHexString(text.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + text + "\r\n";
    }

    @Test
    void clientDisconnectMidStream_closesUpstreamBeforeTheAnswerEnds() throws Exception {
        CountDownLatch clientGone = new CountDownLatch(1);
        try (EngineSimulator endless = endless("east-a")) {
            gateway.server.apply(gateway.snapshot(config(GatewayHarness.oneEngine(endless.url()))));
            endless.failNext(1, Fault.holdBeforeEvent(1, clientGone));
            try (Socket socket = connect(gateway.server.port())) {
                String body = CHAT.replace("}]}", "}],\"stream\":true}");
                OutputStream out = socket.getOutputStream();
                out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                + "Content-Length: " + body.length() + "\r\n\r\n" + body)
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
                assertThat(readUntil(socket.getInputStream(), "\n\n")).contains("chat.completion.chunk");
            }
            clientGone.countDown();
            // Abandoned means the gateway closed the engine's connection while the million-token answer was still
            // being written: one that kept reading after its client left would see it end, never abandoned. How soon
            // is not asserted here (a starved machine delays it; ClientFaultsIntegrationTest prints it).
            assertThat(endless.awaitAbandonedAnswer(GatewayHarness.DEADLINE))
                    .as("upstream closed before its answer ended")
                    .isTrue();
        }
    }

    @Test
    void metrics_exposeAffinityOutcomesAndUpstreamCounts() {
        gateway.post("/v1/chat/completions", CHAT);
        String metrics = gateway.metrics();
        assertThat(metrics).contains("grid_route_prefix_affinity_total{outcome=\"miss\"");
        assertThat(metrics).contains("grid_upstream_requests_total{");
    }

    private EngineSimulator receivedBy() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (east.requestCount() > 0) {
                return east;
            }
            if (west.requestCount() > 0) {
                return west;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new AssertionError("no engine received the request");
    }

    private RecordedRequest receivedByEither() throws InterruptedException {
        return GatewayHarness.take(receivedBy());
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
