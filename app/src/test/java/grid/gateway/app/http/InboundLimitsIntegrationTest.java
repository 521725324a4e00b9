package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Inbound limits on real sockets (reliability A7–A9, A11, A12): the body cap, request {@code Content-Encoding}, and
 * the header and body deadlines the gateway enforces itself. The gateway runs on the system clock here with short
 * deadlines (header 500 ms, body 1 s); assertions allow generous slack and never depend on an upper timing bound
 * tighter than seconds.
 */
class InboundLimitsIntegrationTest {
    private static final String HIDDEN = "GET /pause HTTP/1.1\r\nHost: engine\r\n\r\n";
    private static final int HEADER_TIMEOUT_MS = 500;
    private static final int BODY_TIMEOUT_MS = 1_000;

    @TempDir
    static Path dir;

    private static ScriptedUpstream engine;
    private static GatewayHarness gateway;
    private int connectionsBefore;

    @BeforeAll
    static void start() throws IOException {
        engine = new ScriptedUpstream();
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(
                file, """
                server:
                  port: 0
                  admin_port: 0
                  max_body_bytes: 4096
                  header_timeout_ms: %d
                  body_timeout_ms: %d
                gateway:
                  site: east
                sites:
                %s
                """.formatted(HEADER_TIMEOUT_MS, BODY_TIMEOUT_MS, GatewayHarness.oneEngine(engine.url())));
        // On the system clock: the header and body timeouts are the listener's own, which no manual clock drives.
        gateway = GatewayHarness.onSystemClock(file, 1);
    }

    @AfterAll
    static void stop() {
        gateway.close();
        engine.close();
    }

    @BeforeEach
    void mark() {
        connectionsBefore = engine.connections();
    }

    private static String head(String path, String headers) {
        return "POST " + path + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n" + headers + "\r\n";
    }

    private static double refused(String reason) {
        return gateway.metrics()
                .lines()
                .filter(l -> l.startsWith("grid_requests_refused_total{reason=\"" + reason + "\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    @Test
    void a7_declaredBodyOverTheCap_413InTheApisShapeBeforeTheBodyIsSent_thenClosed() {
        double before = refused("body_too_large");
        for (String path : List.of("/v1/chat/completions", "/v1/messages")) {
            try (RawHttp client = new RawHttp(gateway.server.port())) {
                // Only the head and a first slice of the announced 10,000 bytes: the answer must not wait for more.
                client.send(head(path, "Content-Length: 10000\r\n") + "{\"model\":\"demo-model\",\"x\":\""
                        + "a".repeat(500));
                RawHttp.Reply reply = client.readResponses(1);
                assertThat(reply.status()).isEqualTo(413);
                assertThat(reply.text()).containsIgnoringCase("connection: close");
                assertThat(reply.body())
                        .startsWith(path.equals("/v1/messages") ? "{\"type\":\"error\"" : "{\"error\":{");
                assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
            }
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
        assertThat(refused("body_too_large")).isEqualTo(before + 2);
    }

    @Test
    void a7_unreadRestOfARefusedBody_isNeverReadAsANextRequest() {
        String body = HIDDEN.repeat(150); // 5,700 bytes of pipelined-looking requests: over the cap
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            client.trySend((head("/v1/chat/completions", "Content-Length: " + body.length() + "\r\n") + body)
                    .getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Reply reply = client.read(1_000);
            assertThat(reply.status()).isEqualTo(413); // the gateway drains the refused body before it closes
            assertThat(reply.responses()).isLessThanOrEqualTo(1);
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
    }

    @Test
    void a7_clientStillSendingARefusedBody_readsTheWhole413_becauseTheGatewayLingers() {
        // 16 MiB announced and sent in one write, more than the loopback socket buffers hold, so the client is still
        // writing when the gateway has answered: without the lingering drain the gateway would close with unread
        // bytes, the kernel would reset, and the client's write would fail.
        String body = "{\"model\":\"demo-model\",\"x\":\"" + "a".repeat(16 * 1024 * 1024) + "\"}";
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            boolean written =
                    client.trySend((head("/v1/chat/completions", "Content-Length: " + body.length() + "\r\n") + body)
                            .getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(written).isTrue();
            assertThat(reply.status()).isEqualTo(413);
            assertThat(reply.body()).startsWith("{\"error\":{");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
    }

    @Test
    void a7_clientStillSendingARefusedChunkedBody_readsTheWhole413_becauseTheGatewayLingers() {
        // As above, chunked: the cap is crossed while the body is read, and the rest is still coming.
        StringBuilder chunks = new StringBuilder();
        String chunk = "400\r\n" + "a".repeat(1_024) + "\r\n";
        for (int i = 0; i < 16 * 1024; i++) {
            chunks.append(chunk);
        }
        chunks.append("0\r\n\r\n");
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            boolean written = client.trySend((head("/v1/chat/completions", "Transfer-Encoding: chunked\r\n") + chunks)
                    .getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(written).isTrue();
            assertThat(reply.status()).isEqualTo(413);
            assertThat(reply.body()).startsWith("{\"error\":{");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
    }

    @Test
    void a8_chunkedBodyCrossingTheCap_413_closed_engineUntouched() {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            client.send(head("/v1/chat/completions", "Transfer-Encoding: chunked\r\n"));
            String chunk = "a".repeat(1_000);
            for (int i = 0; i < 5; i++) { // 5,000 bytes: one chunk past the 4,096-byte cap
                client.send(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");
            }
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(413);
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
    }

    @Test
    void a8_chunkedBodyCrossingTheCapAtAChunksEnd_thenTheClientWaits_413NotTheBodysTimeout() {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            client.send(head("/v1/chat/completions", "Transfer-Encoding: chunked\r\n"));
            String chunk = "a".repeat(1_024);
            for (int i = 0; i < 4; i++) { // 4,096 bytes: the cap, then one byte past it in a chunk of its own
                client.send("400\r\n" + chunk + "\r\n");
            }
            client.send("1\r\na\r\n");
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).as(reply.text()).isEqualTo(413);
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
    }

    @Test
    void a8_chunkAnnouncedOverTheCap_413AtItsSizeLine_neverWaitedForOrHeld() {
        double before = refused("body_too_large");
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            // One chunk announced as 2 GiB, and 8 KiB of it: a reader that gathers a chunk whole before handing on a
            // byte of it would wait for all of it (and hold it), past the cap and the budget; its size line says
            // enough to refuse it.
            client.send(
                    head("/v1/chat/completions", "Transfer-Encoding: chunked\r\n") + "7fffffff\r\n" + "a".repeat(8192));
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(413);
            assertThat(reply.body()).startsWith("{\"error\":{");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
        assertThat(refused("body_too_large")).isEqualTo(before + 1);
    }

    @Test
    void a8_chunkSizeLineThatNeverEnds_400AtItsLimit_neverWaitedForOrHeld() {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            // A size line of 64 KiB of zeros and no line end: a reader that looks for the line's end without a limit
            // holds the line for as long as it comes.
            client.send(head("/v1/chat/completions", "Transfer-Encoding: chunked\r\n") + "0".repeat(64 * 1024));
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.body()).contains("invalid_body");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
    }

    @Test
    void a8_chunkAnnouncedOverTheCapToAnAdminPage_answeredThenClosed_neverWaitedForOrHeld() {
        try (RawHttp client = new RawHttp(gateway.server.adminPort())) {
            // An admin page reads no body, and the listener reads what is left of one after the answer to keep the
            // connection: a chunk gathered whole there would be held (2 GiB) as it came, the connection kept open for
            // it.
            client.send("GET /health/live HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n7fffffff\r\n"
                    + "a".repeat(8192));
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "folded header line|GET /metrics HTTP/1.1\\r\\nHost: gw\\r\\nX-A: 1\\r\\n folded\\r\\n\\r\\n|400",
                "two Host fields|GET /health/ready HTTP/1.1\\r\\nHost: a\\r\\nHost: b\\r\\n\\r\\n|400",
                "HTTP/1.1 without Host|GET /health/live HTTP/1.1\\r\\n\\r\\n|400"
            })
    void a8_headTheParserRefusesAtTheAdminPort_itsStatusWithAJsonError_closed(String name, String head, int status) {
        try (RawHttp client = new RawHttp(gateway.server.adminPort())) {
            client.send(head.replace("\\r\\n", "\r\n"));
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(status);
            assertThat(reply.text()).containsIgnoringCase("content-type: application/json");
            assertThat(reply.body()).startsWith("{\"error\":{").contains("\"type\":\"invalid_request_error\"");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
    }

    @Test
    void a8_pathTheAdminPortDoesNotServe_404_notCalledMalformed() {
        try (RawHttp client = new RawHttp(gateway.server.adminPort())) {
            client.send("GET /v1/models HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(404);
            assertThat(reply.body()).doesNotContain("malformed");
        }
    }

    @Test
    void a9_gzipRequestBody_refusedWith400_neverDecoded() throws IOException {
        // 3 MiB of zeros packed into about 3 KiB (under the cap) would inflate far past it if anything decoded it.
        ByteArrayOutputStream packed = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(packed)) {
            gzip.write(new byte[3 * 1024 * 1024]);
        }
        byte[] bomb = packed.toByteArray();
        assertThat(bomb.length).isLessThan(4096);
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            client.send(
                    head("/v1/chat/completions", "Content-Encoding: gzip\r\nContent-Length: " + bomb.length + "\r\n"));
            client.send(bomb);
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(400);
        }
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
    }

    @Test
    void a11_slowHeaders_connectionClosedAfterTheHeaderDeadline_othersServed() throws Exception {
        double before = refused("header_timeout");
        List<RawHttp> slow = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (int i = 0; i < 50; i++) {
                slow.add(new RawHttp(gateway.server.port()).send("GET /v1/models HTTP/1.1\r\nHost: gw\r\nX-Slow: a"));
            }
            // A client that drips bytes is no better off than a silent one: the deadline counts the whole head.
            for (int i = 0; i < 3; i++) {
                slow.getFirst().trySend("b".getBytes(StandardCharsets.US_ASCII));
                TimeUnit.MILLISECONDS.sleep(100);
            }
            try (RawHttp normal = new RawHttp(gateway.server.port())) {
                assertThat(normal.send("GET /v1/models HTTP/1.1\r\nHost: gw\r\n\r\n")
                                .readResponses(1)
                                .status())
                        .isEqualTo(200);
            }
            for (RawHttp client : slow) {
                assertThat(client.closedWithin(10_000)).isTrue();
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                    .isGreaterThanOrEqualTo(HEADER_TIMEOUT_MS);
        } finally {
            slow.forEach(RawHttp::close);
        }
        assertThat(refused("header_timeout")).isEqualTo(before + 50);
    }

    @Test
    void a11_headRefusedByTheParser_neverCountedAsAHeaderTimeout() {
        // A head Helidon's parser refuses after the request line (a folded line) is answered at once; its connection
        // must not stay under the header deadline, to be counted (and its thread interrupted) once the deadline passes.
        double before = refused("header_timeout");
        try (RawHttp folded = new RawHttp(gateway.server.port())) {
            RawHttp.Reply reply = folded.send(
                            head("/v1/chat/completions", "X-A: a\r\n folded\r\nContent-Length: 2\r\n") + "{}")
                    .readResponses(1);
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.closed() || folded.closedWithin(5_000)).isTrue();
        }
        // A slow head that came later is closed by a sweep past the refused head's deadline too.
        try (RawHttp slow =
                new RawHttp(gateway.server.port()).send("GET /v1/models HTTP/1.1\r\nHost: gw\r\nX-Slow: a")) {
            assertThat(slow.closedWithin(10_000)).isTrue();
        }
        assertThat(refused("header_timeout")).as("the slow head only").isEqualTo(before + 1);
    }

    @Test
    void a11_slowHeadersOnTheAdminListener_closedToo() {
        // The admin port is guarded by the same header deadline.
        double before = refused("header_timeout");
        try (RawHttp slow =
                new RawHttp(gateway.server.adminPort()).send("GET /metrics HTTP/1.1\r\nHost: gw\r\nX-Slow: a")) {
            assertThat(slow.closedWithin(10_000)).isTrue();
        }
        assertThat(refused("header_timeout")).isEqualTo(before + 1);
    }

    @Test
    void a12_slowBody_408ThenClosed_nothingForwarded() {
        double before = refused("body_timeout");
        long started = System.nanoTime();
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            client.send(head("/v1/chat/completions", "Content-Length: 100\r\n") + "{\"model\":");
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(408);
            assertThat(reply.body()).contains("request_timeout");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(BODY_TIMEOUT_MS);
        assertThat(engine.connections()).isEqualTo(connectionsBefore);
        assertThat(refused("body_timeout")).isEqualTo(before + 1);
    }

    @Test
    void bodyInTime_forwardedByteExact() {
        String body = "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"on time\"}]}";
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            client.send(head("/v1/chat/completions", "Content-Length: " + body.length() + "\r\n") + body);
            assertThat(client.readResponses(1).status()).isEqualTo(200);
        }
        assertThat(engine.requests().getLast().body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
    }
}
