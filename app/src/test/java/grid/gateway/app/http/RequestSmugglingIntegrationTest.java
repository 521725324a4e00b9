package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On real sockets: malformed chunk framing, chunk extensions, encoded and unknown
 * sub-paths, stray methods, and what a client fault writes to the log. A raw engine records every byte it gets, so
 * "nothing forwarded" is checked on the wire.
 */
class RequestSmugglingIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    /** A request an attacker hopes the engine sees: vLLM's unauthenticated pause endpoint. */
    private static final String HIDDEN = "POST /pause HTTP/1.1\r\nHost: engine\r\nContent-Length: 0\r\n\r\n";

    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private final List<LogRecord> logs = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (logs) {
                logs.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void hook() {
        capture.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void unhook() {
        Logger.getLogger("").removeHandler(capture);
    }

    private static String chunked(String path, String chunks) {
        return "POST " + path + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + chunks;
    }

    /** A chunk whose data is a whole pipelined request: what a lenient reader would take as the next request. */
    private static String smuggling(String sizeLine) {
        return sizeLine + "\r\n" + HIDDEN + "\r\n0\r\n\r\n" + HIDDEN;
    }

    static Stream<Arguments> badChunks() {
        String hex = Integer.toHexString(HIDDEN.length());
        return Stream.of(
                Arguments.of("extension", smuggling(hex + ";ext=1")),
                Arguments.of("extension with spaces", smuggling(hex + " ; ext=\"a b\"")),
                Arguments.of("bare extension", smuggling(hex + ";x")),
                Arguments.of("negative size", smuggling("-1")),
                Arguments.of("size past 64 bits", smuggling("ffffffffffffffffff")),
                Arguments.of("size past 32 bits", smuggling("100000000")),
                Arguments.of("not hex", smuggling("zz")),
                Arguments.of("empty size line", smuggling("")),
                Arguments.of("0x prefix", smuggling("0x" + hex)),
                Arguments.of("bare LF line ends", "2\n{}\n0\n\n" + HIDDEN),
                Arguments.of("trailer field", "2\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n" + HIDDEN),
                Arguments.of("extension on the last chunk", "2\r\n{}\r\n0;ext=1\r\n\r\n" + HIDDEN));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badChunks")
    void badChunkFraming_one400InTheApiShape_closed_nothingForwarded(String name, String chunks) {
        for (String path : List.of("/v1/chat/completions", "/v1/messages", "/v1/responses")) {
            RawHttp.Reply reply;
            boolean closed;
            try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
                reply = client.send(chunked(path, chunks)).readResponses(2);
                closed = reply.closed() || client.closedWithin(5_000);
            }
            assertThat(reply.status())
                    .as(name + " on " + path + ": " + reply.text())
                    .isEqualTo(400);
            assertThat(reply.responses()).as("one answer only").isEqualTo(1);
            assertThat(reply.text().toLowerCase(Locale.ROOT)).contains("connection: close");
            assertThat(reply.body())
                    .contains(path.equals("/v1/messages") ? "\"type\":\"error\"" : "\"code\":\"invalid_body\"");
            assertThat(closed).as("connection closed").isTrue();
        }
        assertThat(GRID.engine.connections()).as("the engine saw no connection").isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void lenientChunkFraming_helidonAccepts_butTheEngineNeverSeesClientFraming() {
        // Helidon 4.5 reads a '+' before a chunk size as hex and skips the two bytes after chunk data without
        // checking that they are CRLF. The gateway cannot see chunk framing; what it can promise is that the engine
        // gets the body re-framed with a Content-Length, and that the request after it is the gateway's to route.
        String hex = Integer.toHexString(CHAT.length());
        int before = GRID.engine.requests().size();
        for (String chunks : List.of(
                "+" + hex + "\r\n" + CHAT + "\r\n0\r\n\r\n" + HIDDEN, hex + "\r\n" + CHAT + "XX0\r\n\r\n" + HIDDEN)) {
            try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
                RawHttp.Reply reply =
                        client.send(chunked("/v1/chat/completions", chunks)).readResponses(2);
                assertThat(reply.status()).as(reply.text()).isEqualTo(200);
                assertThat(reply.text()).contains("HTTP/1.1 404");
            }
        }
        List<ScriptedUpstream.Request> got =
                GRID.engine.requests().subList(before, GRID.engine.requests().size());
        assertThat(got).extracting(ScriptedUpstream.Request::target).containsOnly("/v1/chat/completions");
        assertThat(got).allSatisfy(r -> {
            assertThat(r.body()).isEqualTo(CHAT.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertThat(r.head().toLowerCase(Locale.ROOT))
                    .contains("content-length: " + CHAT.length())
                    .doesNotContain("transfer-encoding");
        });
    }

    @Test
    void badChunkFraming_onAnswersGivenBeforeTheBody_stillClosed() {
        // 404 (unknown path), 405 (stray method) and the model list are answered without reading the body: the
        // connection must not read the smuggled chunk data as a next request either.
        String chunks = smuggling(Integer.toHexString(HIDDEN.length()) + ";ext=1");
        for (String head : List.of(
                "POST /v1/nothing HTTP/1.1\r\n",
                "PATCH /v1/chat/completions HTTP/1.1\r\n",
                "GET /v1/models HTTP/1.1\r\n")) {
            RawHttp.Reply reply;
            boolean closed;
            try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
                reply = client.send(head + "Host: gw\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
                        .readResponses(2);
                closed = reply.closed() || client.closedWithin(5_000);
            }
            assertThat(reply.responses()).as(head + reply.text()).isEqualTo(1);
            assertThat(closed).as(head).isTrue();
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void abortedUpload_noWarningNoStackTrace_countedAsAClientFault() {
        String before = GRID.gateway.metrics();
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"model\":");
        }
        // The gateway notices the closed upload and counts it: wait for the counter, not for a time.
        String after = awaitMetric("grid_requests_refused_total{reason=\"body_unreadable\"", before);
        assertThat(after).isNotEqualTo(before);
        synchronized (logs) {
            // Only what handles requests: the queue scraper may warn about its unreachable metrics_url meanwhile.
            logs.removeIf(r -> r.getLoggerName() == null
                    || !(r.getLoggerName().startsWith("io.helidon")
                            || r.getLoggerName().startsWith("grid.gateway.app.http")));
            assertThat(logs)
                    .filteredOn(r -> r.getLevel().intValue() >= Level.INFO.intValue())
                    .as("no INFO or louder record for a client fault")
                    .isEmpty();
            assertThat(logs).allSatisfy(r -> assertThat(r.getThrown()).isNull());
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    /** The metric line starting with {@code prefix}, once it differs from the one in {@code before}. */
    private static String awaitMetric(String prefix, String before) {
        String old = line(before, prefix);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            String now = line(GRID.gateway.metrics(), prefix);
            if (!now.equals(old)) {
                return now;
            }
            // A scrape a millisecond, not back to back: each one is work for the gateway being waited on.
            LockSupport.parkNanos(1_000_000L);
        }
        return old;
    }

    private static String line(String metrics, String prefix) {
        return metrics.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/responses/resp_x/input_item%73",
                "/v1/responses/resp_x/%63ancel",
                "/v1/responses/resp_%78",
                "/v1/responses/%72esp_x",
                "/v1/responses/a/b/c",
                "/v1/responses/resp_x/cancel/x",
                "/v1/responses/resp_x/Cancel",
                "/v1/responses/resp_x/input_items/x",
                "/v1/responses/input_tokens/x",
                "/v1/responses/inp%75t_tokens",
                "/v1/conversations/conv_x/items/msg_1/x",
                "/v1/conversations/conv_x/item%73",
                "/v1/conversations/conv_x/items/%6dsg",
                "/v1/conversations/conv_x/other",
                "/v1/conversations/%63onv_x"
            })
    void encodedOrUnknownSubPaths_404_notForwarded(String path) {
        for (String method : List.of("GET", "POST", "DELETE")) {
            RawHttp.Reply reply;
            try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
                reply = client.send(method + " " + path + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                                + "Content-Length: 2\r\n\r\n{}")
                        .readResponses(1);
            }
            assertThat(reply.status()).as(method + " " + path).isEqualTo(404);
            assertThat(reply.body()).contains("This path is not served here.");
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    static Stream<Arguments> strayMethods() {
        return Stream.of(
                Arguments.of("TRACE", "/v1/chat/completions", "POST"),
                Arguments.of("PATCH", "/v1/chat/completions", "POST"),
                Arguments.of("GET", "/v1/chat/completions", "POST"),
                Arguments.of("PUT", "/v1/completions", "POST"),
                Arguments.of("BREW", "/v1/messages", "POST"),
                Arguments.of("DELETE", "/v1/messages/count_tokens", "POST"),
                Arguments.of("OPTIONS", "/v1/responses", "POST"),
                Arguments.of("HEAD", "/v1/responses/resp_x", "GET, DELETE"),
                Arguments.of("POST", "/v1/responses/resp_x", "GET, DELETE"),
                Arguments.of("GET", "/v1/responses/resp_x/cancel", "POST"),
                Arguments.of("POST", "/v1/responses/resp_x/input_items", "GET"),
                Arguments.of("PATCH", "/v1/conversations/conv_x", "GET, POST, DELETE"),
                Arguments.of("DELETE", "/v1/conversations/conv_x/items", "GET, POST"),
                Arguments.of("POST", "/v1/conversations/conv_x/items/msg_1", "GET, DELETE"),
                Arguments.of("POST", "/v1/models", "GET"),
                Arguments.of("GET", "/v1/conversations", "POST"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("strayMethods")
    void strayMethod_405WithAllow_inTheApiShape_notForwarded(String method, String path, String allow) {
        RawHttp.Reply reply;
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            reply = client.send(method + " " + path + " HTTP/1.1\r\nHost: gw\r\n\r\n")
                    .readResponses(1);
        }
        assertThat(reply.status()).as(reply.text()).isEqualTo(405);
        assertThat(reply.text()).containsIgnoringCase("\r\nallow: " + allow + "\r\n");
        if (!method.equals("HEAD")) {
            assertThat(reply.body())
                    .contains(
                            path.startsWith("/v1/messages") ? "\"type\":\"error\"" : "\"code\":\"method_not_allowed\"");
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void http2SettingsDropped_forwardedHeadersPassedUnchanged() {
        String chat = "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                + "HTTP2-Settings: AAMAAABkAAQAAP__\r\nForwarded: for=192.0.2.1;proto=https\r\n"
                + "X-Forwarded-Host: api.example\r\nX-Forwarded-Proto: https\r\nContent-Length: " + CHAT.length()
                + "\r\n\r\n" + CHAT;
        int before = GRID.engine.requests().size();
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            assertThat(client.send(chat).readResponses(1).status()).isEqualTo(200);
        }
        String head = GRID.engine.requests().get(before).head();
        assertThat(head.toLowerCase(Locale.ROOT)).doesNotContain("http2-settings");
        assertThat(head)
                .contains("Forwarded: for=192.0.2.1;proto=https\r\n")
                .contains("X-Forwarded-Host: api.example\r\n")
                .contains("X-Forwarded-Proto: https\r\n");
    }
}
