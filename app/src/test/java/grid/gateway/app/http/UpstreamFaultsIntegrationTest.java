package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Engines that fail (docs/reliability-checklist.md F, items 70–81), on real sockets: a scripted raw-socket engine behind the gateway
 * and a raw-socket client in front of it, so the test sees exactly which bytes and which connection ends arrive.
 */
class UpstreamFaultsIntegrationTest {
    static final String CHAT = "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
    static final String STREAM = CHAT.replace("}]}", "}],\"stream\":true}");

    @TempDir
    Path dir;

    ScriptedUpstream engine;
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        } else if (engine != null) {
            engine.close();
        }
    }

    void start(String upstreamSettings) throws IOException {
        start(upstreamSettings, 4096);
    }

    private void start(String upstreamSettings, int maxBodyBytes) throws IOException {
        EngineTransport transport = transport();
        engine = transport.engine();
        String tls = transport.upstreamLines();
        // The transport's lines add to gateway.upstream, written here when the test sets nothing else in it
        String upstream = upstreamSettings.isEmpty() && !tls.isEmpty() ? "  upstream:\n" : upstreamSettings;
        String config = GatewayHarness.config(upstream + tls, GatewayHarness.oneScrapedEngine(engine.url()))
                .replace("max_body_bytes: 4096", "max_body_bytes: " + maxBodyBytes);
        gateway = new GatewayHarness(dir, config, engine);
    }

    /** How the gateway reaches the engine: plain HTTP here. */
    EngineTransport transport() {
        return EngineTransport.plain();
    }

    static String chunk(String text) {
        return Integer.toHexString(text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1).length) + "\r\n" + text
                + "\r\n";
    }

    RawClient.Answer postRaw(String path, String body) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post(path, body);
            return client.read();
        }
    }

    @Test
    void connectRefused_bothCandidates_502AndTwoConnectErrors() throws IOException {
        // Privileged ports nothing listens on. Not ports freed by closing a ServerSocket: the gateway's own listeners
        // (port 0) could be given one of them, and it would then forward to itself.
        int first = 1;
        int second = 9;
        gateway = new GatewayHarness(dir, GatewayHarness.config("", """
                  - name: east
                    clusters:
                      - name: east-a
                        url: http://127.0.0.1:%d
                        models: [demo-model]
                      - name: east-b
                        url: http://127.0.0.1:%d
                        models: [demo-model]
                """.formatted(first, second)));
        RawClient.Answer answer = postRaw("/v1/chat/completions", CHAT);
        assertThat(answer.status()).isEqualTo(502);
        assertThat(answer.body()).contains("\"code\":\"bad_gateway\"");
        assertThat(gateway.metrics())
                .containsPattern("grid_upstream_errors_total\\{cluster=\"east/east-a\",kind=\"connect\"[^}]*} 1\\.0")
                .containsPattern("grid_upstream_errors_total\\{cluster=\"east/east-b\",kind=\"connect\"[^}]*} 1\\.0");
    }

    @Test
    void resetBeforeHeaders_502_requestNotRetriedElsewhere() throws Exception {
        start("");
        engine.script = ScriptedUpstream.Exchange::reset;
        RawClient.Answer answer = postRaw("/v1/chat/completions", CHAT);
        assertThat(answer.status()).isEqualTo(502);
        assertThat(answer.complete()).isTrue();
        // The request reached the engine once: a request that may have started work is never sent twice.
        assertThat(engine.exchanges).hasSize(1);
        assertThat(gateway.metrics()).containsPattern("grid_upstream_errors_total\\{[^}]*kind=\"reset\"[^}]*} 1\\.0");
    }

    @Test
    void resetMidStream_clientStreamEndsAbnormally_noTerminatingChunkNoDone() throws Exception {
        start("");
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD);
            for (int i = 0; i < 3; i++) {
                e.write(chunk("data: {\"n\":" + i + "}\n\n"));
            }
            e.reset();
        };
        RawClient.Answer answer = postRaw("/v1/chat/completions", STREAM);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("data: {\"n\":0}\n\ndata: {\"n\":1}\n\ndata: {\"n\":2}\n\n");
        assertThat(answer.complete()).as("no terminating chunk").isFalse();
        assertThat(answer.body()).doesNotContain("[DONE]");
    }

    @Test
    void cleanEndMidChunk_clientStreamEndsAbnormally() throws Exception {
        start("");
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + chunk("data: {\"n\":0}\n\n") + "40\r\ndata: {\"cut");
            e.socket.shutdownOutput(); // a FIN in the middle of a chunk, not a reset
        };
        RawClient.Answer answer = postRaw("/v1/chat/completions", STREAM);
        assertThat(answer.body()).startsWith("data: {\"n\":0}\n\n");
        assertThat(answer.complete()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions", "/v1/responses"})
    void truncatedJsonBody_clientNeverGetsAShorterValidAnswer(String path) throws Exception {
        start("");
        String full = "{\"id\":\"resp_1\",\"object\":\"response\",\"output\":[]}";
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + full.length() + "\r\n\r\n"
                    + full.substring(0, 20));
            e.socket.shutdownOutput();
        };
        RawClient.Answer answer = postRaw(path, "{\"model\":\"demo-model\",\"input\":\"hi\"}");
        // Either the status went out with the engine's length and the body stops short, or nothing went out yet
        // and the gateway answers 502: never a complete answer with fewer bytes.
        if (answer.status() == 200) {
            assertThat(answer.complete()).isFalse();
        } else {
            assertThat(answer.status()).isEqualTo(502);
            assertThat(answer.body()).contains("bad_gateway");
        }
        assertThat(answer.body()).doesNotContain("\"output\":[]}");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\n{}",
                "HELLO WORLD\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                "HTTP/1.1 200 OK\r\nX-Big: %BIG%\r\nContent-Length: 2\r\n\r\n{}"
            })
    void malformedAnswer_502_connectionNotReused(String raw) throws Exception {
        start("");
        String bytes = raw.replace("%BIG%", "x".repeat(20_000));
        engine.script = e -> {
            e.write(bytes);
            e.awaitPeerClose(10_000);
        };
        RawClient.Answer answer = postRaw("/v1/chat/completions", CHAT);
        assertThat(answer.status()).isEqualTo(502);
        assertThat(answer.body()).contains("bad_gateway");
        ScriptedUpstream.Exchange broken = engine.take();
        engine.script =
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
        assertThat(postRaw("/v1/chat/completions", CHAT).status()).isEqualTo(200);
        assertThat(engine.take().socket)
                .as("a fresh connection for the next request")
                .isNotSameAs(broken.socket);
    }

    @Test
    void silentBeforeFirstByte_504AtTheConfiguredTime_engineSeesItsConnectionClosed() throws Exception {
        start("""
                  upstream:
                    first_byte_timeout_ms: 400
                """);
        engine.script = e -> e.awaitPeerClose(20_000);
        long start = System.nanoTime();
        RawClient.Answer answer = postRaw("/v1/chat/completions", CHAT);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(answer.status()).isEqualTo(504);
        assertThat(answer.body()).contains("gateway_timeout");
        assertThat(elapsedMs).isBetween(400L, 10_000L);
        ScriptedUpstream.Exchange exchange = engine.take();
        awaitPositive(exchange);
        assertThat(gateway.metrics()).containsPattern("grid_upstream_errors_total\\{[^}]*kind=\"timeout\"[^}]*} 1\\.0");
    }

    @Test
    void pauseBetweenEventsLongerThanIdleTimeout_streamAbortedAndUpstreamClosed() throws Exception {
        start("""
                  upstream:
                    idle_timeout_ms: 400
                """);
        assertStreamCutAfterItsFirstEvent(400);
    }

    @Test
    void pauseBetweenEventsLongerThanAShorterFirstByteTimeout_streamAbortedAtIt() throws Exception {
        // The longest silence inside an answer is the smaller of the two timeouts (docs/configuration.md).
        start("""
                  upstream:
                    first_byte_timeout_ms: 400
                    idle_timeout_ms: 60000
                """);
        assertStreamCutAfterItsFirstEvent(400);
    }

    /**
     * The engine sends one event and then nothing: the client gets that event and a stream cut short, no sooner than
     * {@code silenceMs} and well before any longer timeout, and the engine sees its connection closed.
     */
    private void assertStreamCutAfterItsFirstEvent(long silenceMs) throws Exception {
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + chunk("data: {\"n\":0}\n\n"));
            e.awaitPeerClose(20_000);
        };
        long start = System.nanoTime();
        RawClient.Answer answer = postRaw("/v1/chat/completions", STREAM);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(answer.body()).isEqualTo("data: {\"n\":0}\n\n");
        assertThat(answer.complete()).isFalse();
        assertThat(elapsedMs).isBetween(silenceMs, 10_000L);
        awaitPositive(engine.take());
    }

    private static void awaitPositive(ScriptedUpstream.Exchange exchange) throws InterruptedException {
        for (int i = 0; i < 500 && exchange.peerClosedAt == 0; i++) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        assertThat(exchange.peerClosedAt)
                .as("the engine saw its connection closed")
                .isPositive();
    }

    /**
     * A gateway allowing 16 MiB bodies, with {@code idleTimeoutMs}, before an engine whose receive buffer is fixed at
     * 64 KiB and that reads no request body: a longer body's write blocks.
     */
    private void startBeforeAnEngineThatReadsNoBody(int idleTimeoutMs) throws IOException {
        start("  upstream:\n    idle_timeout_ms: " + idleTimeoutMs + "\n", 16 * 1024 * 1024);
        engine.receiveBuffer(64 * 1024);
        engine.readsBody = false;
    }

    private static String eightMiBChat() {
        return CHAT.replace("hello", "h".repeat(8 * 1024 * 1024));
    }

    @ParameterizedTest
    @ValueSource(ints = {413, 200})
    void answerBeforeTheEngineReadsTheBody_relayedAtOnce_connectionClosedNeverReused(int status) throws Exception {
        // An engine that answers after the head (a 413 refusing the body; a 200, which only the unfinished write
        // tells from an answer to the whole request) and reads no more of the body, its connection left open. Its
        // receive buffer is fixed and small, so the gateway's writes of an 8 MiB body block long before the end.
        startBeforeAnEngineThatReadsNoBody(5000);
        String refusal = "{\"error\":{\"message\":\"too large\",\"type\":\"invalid_request_error\",\"code\":413}}";
        CountDownLatch done = new CountDownLatch(1);
        engine.script = e -> {
            e.write("HTTP/1.1 " + status + " Early\r\nContent-Type: application/json\r\nContent-Length: "
                    + refusal.length() + "\r\n\r\n" + refusal);
            done.await(30, TimeUnit.SECONDS); // reads nothing more until the test is done
        };
        String big = eightMiBChat();
        try {
            long start = System.nanoTime();
            RawClient.Answer answer = postRaw("/v1/chat/completions", big);
            // The engine's own answer, at once: not a 504 after the idle timeout, the body's write blocked meanwhile.
            assertThat(answer.status()).isEqualTo(status);
            assertThat(answer.body()).isEqualTo(refusal);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
            ScriptedUpstream.Exchange refused = engine.take();
            // Part of a request is in that connection: it is closed, never pooled.
            assertThat(refused.awaitPeerClose(10_000))
                    .as("the gateway closed the connection")
                    .isTrue();
        } finally {
            done.countDown();
        }
        engine.readsBody = true;
        engine.script =
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
        RawClient.Answer next = postRaw("/v1/chat/completions", CHAT);
        assertThat(next.status()).isEqualTo(200);
        assertThat(next.body()).isEqualTo("{}");
        assertThat(engine.requests()).hasSize(2);
    }

    @Test
    void engineThatReadsNoBodyAndAnswersNothing_bodyWriteCutAtTheIdleTimeout_clientAnswered() throws Exception {
        // The body's write blocks for good (a small receive buffer, nothing read) and no answer comes: the idle
        // timeout closes the connection under the blocked write. Over TLS that close must not wait for the write
        // (a TLS socket's close_notify goes out under the lock the blocked write holds).
        startBeforeAnEngineThatReadsNoBody(1000);
        CountDownLatch done = new CountDownLatch(1);
        engine.script = e -> done.await(30, TimeUnit.SECONDS);
        String big = eightMiBChat();
        try {
            long start = System.nanoTime();
            RawClient.Answer answer = postRaw("/v1/chat/completions", big);
            assertThat(answer.status()).isEqualTo(504);
            assertThat(answer.body()).contains("\"error\"");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
            assertThat(engine.take().awaitPeerClose(10_000))
                    .as("the gateway closed the connection")
                    .isTrue();
        } finally {
            done.countDown();
        }
    }

    @Test
    void engineThatReadsTheBodySlowlyAndAnswersNothing_cutAtTheFirstByteTimeout_notSliceBySlice() throws Exception {
        // Each slice of the body's write makes progress well within the idle timeout (the engine takes 8 KiB every
        // 50 ms: a 16 MiB body would take it 100 s), so no slice ever waits the idle timeout. The exchange's head
        // deadline bounds the whole write: at first_byte_timeout_ms the connection is closed under it.
        start("  upstream:\n    first_byte_timeout_ms: 1500\n    idle_timeout_ms: 5000\n", 16 * 1024 * 1024);
        engine.receiveBuffer(64 * 1024);
        engine.readsBody = false;
        AtomicLong taken = new AtomicLong();
        AtomicBoolean answered = new AtomicBoolean();
        engine.script = e -> {
            byte[] buffer = new byte[8 * 1024];
            int n;
            while (!answered.get() && (n = e.in.read(buffer)) >= 0) {
                taken.addAndGet(n);
                Thread.sleep(50); // the engine's pace, not a wait for the gateway
            }
            // Closed here: the rest of the body, still coming, is no next request to read.
            e.socket.close();
        };
        String big = CHAT.replace("hello", "h".repeat(16 * 1024 * 1024 - CHAT.length()));
        long start = System.nanoTime();
        RawClient.Answer answer = postRaw("/v1/chat/completions", big);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        answered.set(true);
        assertThat(answer.status()).isEqualTo(504);
        assertThat(answer.body()).contains("gateway_timeout");
        assertThat(elapsedMs).isBetween(1500L, 20_000L);
        // What the kernel still holds of the body after the close reaches the engine at its pace: the engine's own
        // count is the proof that the write was not waited out.
        assertThat(taken.get()).as("body bytes the engine took").isLessThan(big.length() / 2);
        assertThat(gateway.metrics()).containsPattern("grid_upstream_errors_total\\{[^}]*kind=\"timeout\"[^}]*} 1\\.0");
    }

    @ParameterizedTest
    @ValueSource(ints = {32 * 1024, 4 * 1024 * 1024})
    void bodyLongerThanTheHeadsWrite_readWholeByTheEngine_connectionReused(int size) throws Exception {
        // 32 KiB: the kernel takes it at once (on a plain connection). 4 MiB behind a 64 KiB receive buffer: most of
        // it goes out on the body's own thread while the answer is awaited. Either way the engine reads it all before
        // answering, so the connection carried one whole request and one whole answer, and is pooled.
        start("", 16 * 1024 * 1024);
        engine.receiveBuffer(64 * 1024);
        engine.script =
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
        String big = CHAT.replace("hello", "h".repeat(size));
        for (int i = 0; i < 2; i++) {
            RawClient.Answer answer = postRaw("/v1/chat/completions", big);
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("{}");
        }
        ScriptedUpstream.Exchange first = engine.take();
        ScriptedUpstream.Exchange second = engine.take();
        assertThat(first.body).hasSize(big.length());
        assertThat(second.body).hasSize(big.length());
        assertThat(second.socket).as("the same connection").isSameAs(first.socket);
    }

    @Test
    void rateLimited_429WithRetryAfterPassedThrough() throws Exception {
        start("");
        String body = "{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit\"}}";
        engine.script = e -> e.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Type: "
                + "application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        RawClient.Answer answer = postRaw("/v1/chat/completions", CHAT);
        assertThat(answer.status()).isEqualTo(429);
        assertThat(answer.header("retry-after")).isEqualTo("7");
        assertThat(answer.body()).isEqualTo(body);
        assertThat(gateway.metrics())
                .containsPattern(
                        "grid_upstream_requests_total\\{cluster=\"east/east-a\",[^}]*status=\"429\"[^}]*} 1\\.0");
    }

    @Test
    void badRequest_passedThrough_clusterStaysAdmitted() throws Exception {
        start("");
        String body = "{\"error\":{\"message\":\"bad\",\"type\":\"BadRequestError\"}}";
        engine.script = e -> e.write("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body);
        for (int i = 0; i < 4; i++) {
            RawClient.Answer answer = postRaw("/v1/chat/completions", CHAT);
            assertThat(answer.status()).isEqualTo(400);
            assertThat(answer.body()).isEqualTo(body);
        }
        assertThat(gateway.metrics()).containsPattern("grid_cluster_admitted\\{cluster=\"east/east-a\"[^}]*} 1\\.0");
    }

    @Test
    void hopByHopHeadersFromEngine_notForwarded_framingRecomputed() throws Exception {
        start("");
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: foo, bar\r\n"
                + "Foo: 1\r\nBar: 2\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nUpgrade: h2c\r\n"
                + "Trailer: X-T\r\nX-Kept: yes\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunk("{\"a\":") + chunk("1}") + "0\r\n\r\n");
        RawClient.Answer answer = postRaw("/v1/chat/completions", CHAT);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("{\"a\":1}");
        assertThat(answer.complete()).isTrue();
        assertThat(answer.header("x-kept")).isEqualTo("yes");
        for (String dropped : new String[] {"foo", "bar", "keep-alive", "proxy-connection", "upgrade", "trailer"}) {
            assertThat(answer.header(dropped)).as(dropped).isNull();
        }
        assertThat(answer.header("connection")).isNotEqualTo("foo, bar");
    }

    @Test
    void responsesEventWithIdSplitAcrossWrites_taggedIntact_deliveredBeforeTheStreamEnds() throws Exception {
        start("");
        java.util.concurrent.CountDownLatch clientHasIt = new java.util.concurrent.CountDownLatch(1);
        String event = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":"
                + "{\"id\":\"resp_split1\"}}\n\n";
        int cut = event.indexOf("resp_") + 3; // inside "resp_"
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + chunk(event.substring(0, cut)));
            e.awaitReadByTheGateway();
            e.write(chunk(event.substring(cut)));
            // The stream stays open until the client has the event: it must not wait for the end.
            clientHasIt.await(10, TimeUnit.SECONDS);
            e.write("0\r\n\r\n");
        };
        String tagged = "resp_east." + grid.gateway.routing.tag.ClusterDigest.of("east-a") + "..split1";
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            client.readHead();
            assertThat(client.readUntil("}}\n\n")).contains("\"id\":\"" + tagged + "\"");
            clientHasIt.countDown();
        }
    }
}
