package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.app.GatewayHarness;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.order_by: expected_wait} on real sockets: each answer's first body bytes are its first token, which
 * re-anchors its cluster's prefill backlog to what was sent after it (seen through {@code POST /route/explain}'s
 * {@code prefill_backlog_seconds}); a stream's headers, which an engine sends before its prefill, do not. The clock
 * stands still, so nothing drains in real time: only the first token moves the backlog. With the default
 * {@code depth} there is no backlog at all.
 */
class FirstTokenBacklogIntegrationTest {
    private static final String CHAT = "/v1/chat/completions";
    private static final String EXPECTED_WAIT = """
            plugins:
              grid_site_route:
                load: {order_by: expected_wait}
            """;
    /** The configured prefill rate, tokens a second. */
    private static final double PREFILL = 10_000;

    @TempDir
    Path dir;

    private final ScriptedUpstream upstream = new ScriptedUpstream();
    private final List<CountDownLatch> firstEvents = List.of(new CountDownLatch(1), new CountDownLatch(1));
    private final AtomicInteger answered = new AtomicInteger();
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        firstEvents.forEach(CountDownLatch::countDown);
        if (gateway != null) {
            gateway.close();
        }
        upstream.close();
    }

    private void start(String plugins, boolean stream) {
        // The n-th request's answer: the stream's headers at once, its first event when the test opens its gate
        // (as a vLLM stream's headers precede its prefill); or a whole JSON answer once the gate opens.
        upstream.script = e -> {
            CountDownLatch gate = firstEvents.get(answered.getAndIncrement());
            if (stream) {
                e.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
                gate.await();
                e.write(chunk("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n") + chunk("data: [DONE]\n\n")
                        + "0\r\n\r\n");
            } else {
                gate.await();
                e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            }
        };
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                                GatewayHarness.routeExplain(dir),
                                "",
                                GatewayHarness.oneEngine(upstream.url()) + GatewayHarness.drainingTwin())
                        + plugins);
    }

    @Test
    void streamedFirstEvent_reanchorsTheBacklogToWhatWasSentAfterIt_theHeadersDoNot() throws Exception {
        start(EXPECTED_WAIT, true);
        assertThat(backlog()).isZero();

        CompletableFuture<HttpResponse<String>> first = send(chat("the grid", true));
        awaitHeaders(1);
        double firstPrefill = prefillOf(chat("the grid", true));
        assertThat(firstPrefill).isPositive();
        assertThat(backlog()).as("the stream's headers are no first token").isCloseTo(firstPrefill, within(1e-9));

        CompletableFuture<HttpResponse<String>> second = send(chat("something else", true));
        awaitHeaders(2);
        double secondPrefill = prefillOf(chat("something else", true));
        assertThat(backlog()).isCloseTo(firstPrefill + secondPrefill, within(1e-9));

        firstEvents.get(0).countDown();
        assertThat(first.get(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS)
                        .body())
                .contains("\"content\":\"hi\"");
        assertThat(backlog()).as("what was sent after the first request").isCloseTo(secondPrefill, within(1e-9));

        firstEvents.get(1).countDown();
        assertThat(second.get(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS)
                        .statusCode())
                .isEqualTo(200);
        assertThat(backlog()).isZero();
    }

    @Test
    void nonStreamedAnswer_isItsFirstToken() throws Exception {
        start(EXPECTED_WAIT, false);
        CompletableFuture<HttpResponse<String>> answer = send(chat("the grid", false));
        GatewayHarness.await("the request at the engine", () -> answered.get() == 1);
        assertThat(backlog()).isCloseTo(prefillOf(chat("the grid", false)), within(1e-9));

        firstEvents.get(0).countDown();
        assertThat(answer.get(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS)
                        .body())
                .isEqualTo("{}");
        assertThat(backlog()).isZero();
    }

    @Test
    void depth_keepsNoBacklog() throws Exception {
        start("", true);
        CompletableFuture<HttpResponse<String>> answer = send(chat("the grid", true));
        awaitHeaders(1);
        assertThat(backlog()).isZero();
        firstEvents.get(0).countDown();
        assertThat(answer.get(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS)
                        .statusCode())
                .isEqualTo(200);
        assertThat(backlog()).isZero();
    }

    /** A chat body of about 2 KiB (eight or more blocks) about {@code topic}. */
    private static String chat(String topic, boolean stream) {
        return "{\"model\":\"demo-model\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\""
                + ("Tell me about " + topic + ". ").repeat(90) + "\"}]}";
    }

    private static String chunk(String text) {
        return Integer.toHexString(text.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + text + "\r\n";
    }

    private CompletableFuture<HttpResponse<String>> send(String body) {
        return gateway.client.sendAsync(
                HttpRequest.newBuilder(gateway.uri(CHAT))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Waits until the gateway holds the headers of {@code answers} answers (counted before their bodies are read). */
    private void awaitHeaders(int answers) {
        GatewayHarness.await(
                answers + " answers' headers at the gateway",
                () -> gateway.metric("grid_upstream_requests_total", "status=\"200\"") == answers);
    }

    private JsonObject explain(String body) {
        HttpResponse<String> answer =
                gateway.send(gateway.explainRequest("?path=" + CHAT, body).build());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return Json.createReader(new StringReader(answer.body())).readObject();
    }

    /** The one cluster's prefill backlog, seconds, as explain reports it. */
    private double backlog() {
        return explain(chat("anything", false))
                .getJsonArray("candidates")
                .getJsonObject(0)
                .getJsonNumber("prefill_backlog_seconds")
                .doubleValue();
    }

    /** What {@code body} adds to a cold cluster's backlog: its blocks × 64 tokens ÷ the prefill rate. */
    private double prefillOf(String body) {
        return explain(body).getInt("keys") * 64 / PREFILL;
    }
}
