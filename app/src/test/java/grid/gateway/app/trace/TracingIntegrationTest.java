package grid.gateway.app.trace;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.RecordedRequest;
import grid.gateway.routing.tag.ClusterDigest;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tracing on real sockets: the gateway in front of a simulated engine, with and without a real OTLP receiver. What
 * the engine is told of the trace is read from the headers it recorded; what is exported, from the spans the receiver
 * decoded off the wire.
 */
class TracingIntegrationTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01";
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final Pattern CONTEXT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");
    private static final Pattern STORED_ID = Pattern.compile("\"id\"\\s*:\\s*\"(resp_[^\"]+)\"");
    private static final Duration BOUND = Duration.ofSeconds(20);
    /** The export timeout of a test whose collector never answers: far past the test's end. */
    private static final Duration STUCK_EXPORT = Duration.ofMinutes(10);

    @TempDir
    Path dir;

    private EngineSimulator engine;
    private OtlpReceiver receiver;

    @BeforeEach
    void start() {
        engine = GatewayHarness.engine("east-a");
        receiver = new OtlpReceiver();
    }

    @AfterEach
    void stop() {
        receiver.close();
        engine.close();
    }

    private GatewayHarness gateway(String tracing) {
        return new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())) + tracing);
    }

    private String exporting() {
        return "tracing:\n  otlp_endpoint: " + receiver.url() + "\n  service_name: east-gw\n";
    }

    private static HttpResponse<String> chat(GatewayHarness gateway, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(CHAT));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return gateway.send(request.build());
    }

    private static Matcher context(RecordedRequest seen) {
        String value = seen.header("traceparent").orElseThrow(() -> new AssertionError("no traceparent upstream"));
        Matcher context = CONTEXT.matcher(value);
        assertThat(context.matches()).as(value).isTrue();
        return context;
    }

    private static String hex(com.google.protobuf.ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }

    private static Span ofKind(List<OtlpReceiver.Received> spans, Span.SpanKind kind) {
        return spans.stream()
                .map(OtlpReceiver.Received::span)
                .filter(s -> s.getKind() == kind)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " span in " + spans));
    }

    @Test
    void noEndpoint_traceparentContinued_newParentId_tracestatePassedOn() {
        try (GatewayHarness gateway = gateway("")) {
            assertThat(chat(gateway, "traceparent", TRACEPARENT, "tracestate", "vendor=abc,other=1")
                            .statusCode())
                    .isEqualTo(200);

            RecordedRequest seen = GatewayHarness.take(engine);
            Matcher context = context(seen);
            assertThat(context.group(1)).isEqualTo(TRACE_ID);
            assertThat(context.group(2)).isNotEqualTo(CLIENT_SPAN).isNotEqualTo("0000000000000000");
            assertThat(context.group(3)).isEqualTo("01");
            assertThat(seen.headers().get("traceparent")).hasSize(1);
            assertThat(seen.header("tracestate")).contains("vendor=abc,other=1");
        }
    }

    @Test
    void noEndpoint_noTraceparent_noneAdded() {
        try (GatewayHarness gateway = gateway("")) {
            assertThat(chat(gateway).statusCode()).isEqualTo(200);

            RecordedRequest seen = GatewayHarness.take(engine);
            assertThat(seen.header("traceparent")).isEmpty();
            assertThat(seen.header("tracestate")).isEmpty();
        }
    }

    @Test
    void noEndpoint_malformedTraceparent_droppedWithItsTracestate_answered() {
        try (GatewayHarness gateway = gateway("")) {
            for (String malformed : List.of(
                    "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01-extra",
                    "ff-" + TRACE_ID + "-" + CLIENT_SPAN + "-01",
                    "00-00000000000000000000000000000000-" + CLIENT_SPAN + "-01",
                    "00-" + TRACE_ID.toUpperCase(java.util.Locale.ROOT) + "-" + CLIENT_SPAN + "-01",
                    "garbage")) {
                assertThat(chat(gateway, "traceparent", malformed, "tracestate", "vendor=abc")
                                .statusCode())
                        .as(malformed)
                        .isEqualTo(200);

                RecordedRequest seen = GatewayHarness.take(engine);
                assertThat(seen.header("traceparent")).as(malformed).isEmpty();
                assertThat(seen.header("tracestate")).as(malformed).isEmpty();
            }
        }
    }

    @Test
    void endpoint_serverAndClientSpansExported_linked_withTheRoutingDecision() throws InterruptedException {
        String engineParent;
        try (GatewayHarness gateway = gateway(exporting())) {
            assertThat(chat(gateway, "traceparent", TRACEPARENT, "tracestate", "vendor=abc")
                            .statusCode())
                    .isEqualTo(200);
            RecordedRequest seen = GatewayHarness.take(engine);
            Matcher context = context(seen);
            assertThat(context.group(1)).isEqualTo(TRACE_ID);
            assertThat(seen.header("tracestate")).contains("vendor=abc");
            engineParent = context.group(2);
        }
        // Closing the gateway exported what was queued.
        List<OtlpReceiver.Received> spans = receiver.await(2, BOUND);

        assertThat(spans).hasSize(2).allSatisfy(r -> assertThat(r.service()).isEqualTo("east-gw"));
        Span server = ofKind(spans, Span.SpanKind.SPAN_KIND_SERVER);
        Span client = ofKind(spans, Span.SpanKind.SPAN_KIND_CLIENT);
        assertThat(hex(server.getTraceId())).isEqualTo(TRACE_ID);
        assertThat(hex(server.getParentSpanId())).isEqualTo(CLIENT_SPAN);
        assertThat(hex(client.getTraceId())).isEqualTo(TRACE_ID);
        assertThat(hex(client.getParentSpanId())).isEqualTo(hex(server.getSpanId()));
        assertThat(hex(client.getSpanId())).isEqualTo(engineParent);
        assertThat(server.getName()).isEqualTo("POST /v1/chat/completions");
        assertThat(OtlpReceiver.text(server, "grid.model")).isEqualTo("demo-model");
        assertThat(OtlpReceiver.text(server, "grid.cluster")).isEqualTo("east-a");
        assertThat(OtlpReceiver.text(server, "grid.site")).isEqualTo("east");
        assertThat(OtlpReceiver.text(server, "grid.outcome")).isEqualTo("none");
        assertThat(OtlpReceiver.number(server, "grid.run")).isZero();
        assertThat(OtlpReceiver.number(server, "grid.candidates")).isEqualTo(1);
        assertThat(OtlpReceiver.flag(server, "grid.pinned")).isFalse();
        assertThat(OtlpReceiver.number(server, "http.response.status_code")).isEqualTo(200);
        assertThat(OtlpReceiver.text(client, "grid.cluster")).isEqualTo("east-a");
        assertThat(OtlpReceiver.number(client, "http.response.status_code")).isEqualTo(200);
        assertThat(client.getStartTimeUnixNano()).isGreaterThanOrEqualTo(server.getStartTimeUnixNano());
        assertThat(client.getEndTimeUnixNano()).isLessThanOrEqualTo(server.getEndTimeUnixNano());
        assertThat(receiver.refusals()).isEmpty();
    }

    @Test
    void endpoint_aStoredIdInTracestateOrModel_neverExported() throws InterruptedException {
        String mark = "feedc0de5ec2e7aa";
        String id = "resp_east." + ClusterDigest.of("east-a") + ".." + mark;
        try (GatewayHarness gateway = gateway(exporting())) {
            assertThat(chat(gateway, "traceparent", TRACEPARENT, "tracestate", "vendor=" + id)
                            .statusCode())
                    .isEqualTo(200);
            RecordedRequest seen = GatewayHarness.take(engine);
            assertThat(context(seen).group(1)).isEqualTo(TRACE_ID);
            assertThat(seen.header("tracestate")).isEmpty();
            assertThat(gateway.post("/v1/chat/completions", CHAT.replace("demo-model", id))
                            .statusCode())
                    .isEqualTo(404);
        }
        List<OtlpReceiver.Received> spans = receiver.await(3, BOUND);

        assertThat(spans).allSatisfy(r -> assertThat(r.span().toString()).doesNotContain(mark));
        assertThat(spans.stream().map(r -> r.span()).filter(s -> s.getKind() == Span.SpanKind.SPAN_KIND_SERVER))
                .anySatisfy(s -> assertThat(OtlpReceiver.text(s, "grid.model")).isEqualTo("{id}"));
    }

    @Test
    void endpoint_aModelOfOneMebibyte_exportedAsItsFirst253CharactersAndAnEllipsis() throws InterruptedException {
        String huge = "m".repeat(1 << 20);
        String yaml = GatewayHarness.config("", GatewayHarness.oneEngine(engine.url()))
                        .replace("max_body_bytes: 4096", "max_body_bytes: 4194304")
                + exporting();
        try (GatewayHarness gateway = new GatewayHarness(dir, yaml)) {
            assertThat(gateway.post("/v1/chat/completions", CHAT.replace("demo-model", huge))
                            .statusCode())
                    .isEqualTo(404);
        }
        Span server = ofKind(receiver.await(1, BOUND), Span.SpanKind.SPAN_KIND_SERVER);

        assertThat(OtlpReceiver.text(server, "grid.model")).isEqualTo("m".repeat(253) + "…");
    }

    @Test
    void endpoint_pinnedRequest_spanSaysPinned() throws InterruptedException {
        try (GatewayHarness gateway = gateway(exporting())) {
            HttpResponse<String> created = gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
            assertThat(created.statusCode()).isEqualTo(200);
            Matcher id = STORED_ID.matcher(created.body());
            assertThat(id.find()).as(created.body()).isTrue();

            assertThat(gateway.get("/v1/responses/" + id.group(1)).statusCode()).isEqualTo(200);
        }
        List<OtlpReceiver.Received> spans = receiver.await(4, BOUND);

        List<Span> servers = spans.stream()
                .map(OtlpReceiver.Received::span)
                .filter(s -> s.getKind() == Span.SpanKind.SPAN_KIND_SERVER)
                .toList();
        Span create = servers.stream()
                .filter(s -> s.getName().equals("POST /v1/responses"))
                .findFirst()
                .orElseThrow();
        Span pinned = servers.stream()
                .filter(s -> s.getName().equals("GET /v1/responses/{response_id}"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span of the pinned GET in " + servers));
        assertThat(OtlpReceiver.flag(create, "grid.pinned")).isFalse();
        assertThat(OtlpReceiver.flag(pinned, "grid.pinned")).isTrue();
        assertThat(OtlpReceiver.text(pinned, "grid.cluster")).isEqualTo("east-a");
        assertThat(OtlpReceiver.number(pinned, "grid.candidates")).isEqualTo(1);
    }

    @Test
    void endpoint_malformedTraceparent_aNewTrace_answered() throws InterruptedException {
        try (GatewayHarness gateway = gateway(exporting())) {
            assertThat(chat(gateway, "traceparent", "00-not-a-trace-01", "tracestate", "vendor=abc")
                            .statusCode())
                    .isEqualTo(200);
            Matcher context = context(GatewayHarness.take(engine));
            assertThat(context.group(1)).isNotEqualTo(TRACE_ID);
            assertThat(Integer.parseInt(context.group(3), 16) & 1).as("sampled").isEqualTo(1);
        }
        Span server = ofKind(receiver.await(2, BOUND), Span.SpanKind.SPAN_KIND_SERVER);
        assertThat(server.getParentSpanId().isEmpty()).as("a root span").isTrue();
    }

    @Test
    void endpoint_noTraceparent_aNewTraceSentToTheEngine() throws InterruptedException {
        try (GatewayHarness gateway = gateway(exporting())) {
            assertThat(chat(gateway).statusCode()).isEqualTo(200);
            Matcher context = context(GatewayHarness.take(engine));
            Optional<String> traceId = Optional.of(context.group(1));

            List<OtlpReceiver.Received> spans = receiver.await(2, BOUND);
            assertThat(spans).extracting(r -> hex(r.span().getTraceId())).containsOnly(traceId.orElseThrow());
        }
    }

    @Test
    void endpoint_clientSaysNotSampled_contextPassedOn_nothingExported() throws InterruptedException {
        String unsampled = "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-00";
        String sampledTrace = "0af7651916cd43dd8448eb211c80319c";
        try (GatewayHarness gateway = gateway(exporting())) {
            assertThat(chat(gateway, "traceparent", unsampled).statusCode()).isEqualTo(200);
            Matcher context = context(GatewayHarness.take(engine));
            assertThat(context.group(1)).isEqualTo(TRACE_ID);
            assertThat(context.group(2)).isNotEqualTo(CLIENT_SPAN);
            assertThat(context.group(3)).isEqualTo("00");

            assertThat(chat(gateway, "traceparent", "00-" + sampledTrace + "-" + CLIENT_SPAN + "-01")
                            .statusCode())
                    .isEqualTo(200);
            GatewayHarness.take(engine);
        }
        // Closing the gateway exported everything queued: only the sampled request's two spans are there.
        assertThat(receiver.await(2, BOUND))
                .extracting(r -> hex(r.span().getTraceId()))
                .containsExactly(sampledTrace, sampledTrace);
    }

    @Test
    void endpoint_collectorNeverAnswers_requestsAnsweredMeanwhile_shutdownBounded() throws Exception {
        try (ServerSocket stuck = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // A collector that takes the connection and never reads or answers: each export waits its timeout, which
            // here outlasts the test, so nothing below can pass by racing it.
            CountDownLatch exporting = new CountDownLatch(1);
            List<Socket> held = new CopyOnWriteArrayList<>();
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(stuck.accept());
                        exporting.countDown();
                    }
                } catch (IOException closed) {
                    // The test is over.
                }
            });
            GatewayHarness gateway = GatewayHarness.exportingWithin(
                    dir,
                    GatewayHarness.config("", GatewayHarness.oneEngine(engine.url()))
                            + "tracing:\n  otlp_endpoint: http://127.0.0.1:" + stuck.getLocalPort() + "\n",
                    STUCK_EXPORT);
            try {
                assertThat(chat(gateway).statusCode()).isEqualTo(200);
                assertThat(exporting.await(BOUND.toSeconds(), TimeUnit.SECONDS))
                        .as("an export reached the collector")
                        .isTrue();
                // Had a request waited for the stuck export, it would wait past its own deadline: answered at all is
                // answered while the export hangs.
                for (int i = 0; i < 20; i++) {
                    assertThat(chat(gateway, "traceparent", TRACEPARENT).statusCode())
                            .isEqualTo(200);
                }
            } finally {
                // Closing waits the close bound, then aborts the export: a close that waited the export's own
                // timeout would outlast this wait, which only stops such a test.
                CompletableFuture.runAsync(gateway::close).get(STUCK_EXPORT.toMinutes() / 10, TimeUnit.MINUTES);
                assertThat(held).isNotEmpty();
                assertThat(closedByThePeer(held.getFirst()))
                        .as("the stuck export aborted")
                        .isTrue();
                stuck.close();
                acceptor.join(BOUND);
                for (Socket socket : held) {
                    socket.close();
                }
            }
        }
    }

    /** Whether the peer closed {@code socket} (what it sent is drained), waiting at most {@link #BOUND}. */
    private static boolean closedByThePeer(Socket socket) throws IOException {
        socket.setSoTimeout((int) BOUND.toMillis());
        byte[] drained = new byte[64 * 1024];
        try {
            while (socket.getInputStream().read(drained) >= 0) {
                // The export's request, never read by the collector.
            }
            return true;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }
}
