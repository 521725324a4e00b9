package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.tls.TestPki;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import jakarta.json.JsonObject;
import java.io.InputStream;
import java.net.Socket;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored id never reaches what the gateway records, however a client writes it, on real sockets: each way of
 * writing a path an engine or a proxy could read as naming one (percent-encoded, an encoded slash, another letter
 * case, a parameter, empty and dot segments, the absolute form, a placeholder holding one, the query), a method or
 * {@code X-Request-Id} spelled as one, the explainer's log line, and ids in bodies. Checked in the access line, in
 * every record of the process's log at every level, in the metrics, and in answers to another client.
 */
class StoredIdRedactionIntegrationTest {
    /** The part of the stored id that must never be recorded. */
    private static final String MARK = "feedc0de5ec2e7aa";

    private static final String ID = "resp_east." + ClusterDigest.of("east-a") + ".." + MARK;

    @TempDir
    Path dir;

    private final Logger root = Logger.getLogger("");
    private final Level rootLevel = root.getLevel();
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        private final SimpleFormatter format = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            logged.add(format.format(record));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private GatewayHarness gateway;

    @BeforeEach
    void captureEveryLevel() {
        capture.setLevel(Level.ALL);
        root.setLevel(Level.ALL);
        root.addHandler(capture);
    }

    @AfterEach
    void stop() {
        root.removeHandler(capture);
        root.setLevel(rootLevel);
        if (gateway != null) {
            gateway.close();
        }
    }

    private EngineSimulator start(String serverExtra) {
        EngineSimulator engine = GatewayHarness.engine("east-a");
        gateway = new GatewayHarness(
                dir, GatewayHarness.config(serverExtra, "", GatewayHarness.oneEngine(engine.url())), engine);
        return engine;
    }

    @Test
    void everyWayOfWritingAPathWithAnId_itsAccessLineRedactsIt() throws Exception {
        start("");
        String rest = ID.substring("resp_".length());
        String[][] asked = {
            {"/v1/files/resp%5F" + rest, "/v1/files/{id}"},
            {"/v1/files/%72" + ID.substring(1), "/v1/files/{id}"},
            {"/v1/files/RESP%5f" + rest, "/v1/files/{id}"},
            {"/v1/files/resp%255F" + rest, "/v1/files/{id}"},
            {"/v1/files%2F" + ID, "/v1/{id}"},
            {"/v1/responses%2F" + MARK, "/v1/{id}"},
            {"/V1/Responses/" + MARK, "/V1/Responses/{id}"},
            {"/v1/responses;a=b/" + MARK, "/v1/responses;a=b/{id}"},
            {"/v1/responses%3Bx/" + MARK, "/v1/responses%3Bx/{id}"},
            {"/v1//responses/" + MARK, "/v1//responses/{id}"},
            {"//v1/responses/" + MARK, "//v1/responses/{id}"},
            {"/v1/./responses/" + MARK, "/v1/./responses/{id}"},
            {"/v1/x/../responses/" + MARK, "/v1/x/../responses/{id}"},
            {"/v1/responses/%2e%2e/" + MARK, "/v1/responses/%2e%2e/{id}"},
            // The absolute form is read as its origin form (AbsoluteForm).
            {"http://gw/v1/responses/" + MARK, "/v1/responses/{id}"},
            // Listed: the placeholder for an item id holds a stored id.
            {"/v1/conversations/conv_x/items/" + ID, "/v1/conversations/{id}/items/{id}"},
            // The query is never logged.
            {"/v1/chat/completions?previous_response_id=" + ID + "&after=" + ID, "/v1/chat/completions"},
        };
        for (String[] path : asked) {
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.send("GET " + path[0] + " HTTP/1.1\r\nHost: gw\r\n\r\n");
                RawClient.Answer answer = client.read();
                assertThat(answer.status()).as(path[0]).isIn(404, 405);
            }
            JsonObject line = gateway.accessLog.next();
            assertThat(line.getString("path")).as(path[0]).isEqualTo(path[1]);
        }
        // Targets Helidon's parser refuses (400, no access line): nothing logged holds the id either.
        for (String refused : List.of("/v1/files/" + ID + "%", "/v1/files/%ZZ" + ID, "/v1/files/" + ID + "\u0001")) {
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.send("GET " + refused + " HTTP/1.1\r\nHost: gw\r\n\r\n");
                assertThat(client.read().status()).as(refused).isEqualTo(400);
            }
        }
        assertNothingRecordedHoldsTheId();
    }

    @Test
    void aMethodOrRequestIdSpelledAsAStoredId_neverLoggedNorSentOn() throws Exception {
        EngineSimulator engine = start("");
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send(ID.toUpperCase(Locale.ROOT) + " /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nX-Request-Id: "
                    + ID + "\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(405);
            assertThat(answer.header("X-Request-Id")).isEqualTo("req-1");
        }
        JsonObject line = gateway.accessLog.next();
        assertThat(line.getString("method")).isEqualTo("{id}");
        assertThat(line.getString("request_id")).isEqualTo("req-1");

        HttpResponse<String> chat = gateway.post(
                "/v1/chat/completions",
                "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                "X-Request-Id",
                ID);
        assertThat(chat.statusCode()).isEqualTo(200);
        assertThat(chat.headers().firstValue("X-Request-Id")).contains("req-2");
        assertThat(GatewayHarness.take(engine).header("x-request-id")).contains("req-2");
        assertThat(gateway.accessLog.next().getString("request_id")).isEqualTo("req-2");
        assertNothingRecordedHoldsTheId();
    }

    @Test
    void theExplainersLogLine_redactsTheExplainedPathAndMethod() {
        start(GatewayHarness.routeExplain(dir));
        for (String path : List.of(
                "/v1/files/%72" + ID.substring(1),
                "/V1/Responses/" + MARK,
                "/v1/conversations/c/items/" + ID,
                "/v1/files/x?previous_response_id=" + ID)) {
            HttpResponse<String> answer = gateway.send(gateway.explainRequest(
                            "?path=" + URLEncoder.encode(path, StandardCharsets.UTF_8) + "&method=GET", "")
                    .build());
            assertThat(answer.statusCode()).as(path).isIn(200, 400);
        }
        gateway.send(gateway.explainRequest("?path=/v1/chat/completions&method=" + ID, "")
                .build());
        assertThat(logged.stream().filter(l -> l.contains("route explain")))
                .hasSize(5)
                .allSatisfy(l -> assertThat(l).doesNotContain(MARK));
        assertNothingRecordedHoldsTheId();
    }

    @Test
    void idsInBodies_refusedOrForwarded_neverRecorded() {
        start("");
        String otherCluster = "conv_east." + ClusterDigest.of("east-b") + ".." + MARK;
        String[] bodies = {
            "{\"model\":\"demo-model\",\"input\":\"hi\",\"previous_response_id\":\"" + ID + "\"}",
            "{\"model\":\"demo-model\",\"input\":\"hi\",\"conversation\":\"" + otherCluster + "\"}",
            "{\"model\":\"demo-model\",\"input\":\"hi\",\"previous_response_id\":\"" + ID
                    + "\",\"conversation\":{\"id\":\"" + otherCluster + "\"}}",
            "{\"model\":\"demo-model\",\"previous_response_id\":\"" + ID + "\",",
            "{\"previous_response_id\":\"" + ID.replace("..", ".zz.") + "\"}",
        };
        for (String body : bodies) {
            assertThat(gateway.post("/v1/responses", body).statusCode())
                    .as(body)
                    .isBetween(200, 599);
            assertThat(gateway.accessLog.next().toString()).doesNotContain(MARK);
        }
        assertNothingRecordedHoldsTheId();
    }

    @Test
    void aStreamOnAPathWithAnIdCutByEitherSide_itsLogLinesHoldNoId() throws Exception {
        try (ScriptedUpstream scripted = new ScriptedUpstream()) {
            gateway =
                    new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneScrapedEngine(scripted.url())));
            CountDownLatch clientGone = new CountDownLatch(1);
            scripted.script = ScriptedUpstream.eventsUntilClosed(clientGone);
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.send("GET /v1/responses/" + ID + "?stream=true HTTP/1.1\r\nHost: gw\r\n\r\n");
                assertThat(client.readUntil("{\"n\":0}")).endsWith("{\"n\":0}");
            }
            clientGone.countDown();
            assertThat(gateway.accessLog.next().getString("end")).isEqualTo("client_gone");

            scripted.script = e -> {
                e.write(ScriptedUpstream.SSE_HEAD);
                e.write(UpstreamFaultsIntegrationTest.chunk("data: {\"n\":0}\n\n"));
                e.reset();
            };
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.send("GET /v1/responses/" + ID + "?stream=true HTTP/1.1\r\nHost: gw\r\n\r\n");
                assertThat(client.read().complete()).isFalse();
            }
            assertThat(gateway.accessLog.next().getString("end")).isEqualTo("upstream_cut");
            assertNothingRecordedHoldsTheId();
        }
    }

    @Test
    void aTlsClientLeavingAStreamOnAPathWithAnId_itsLogLinesHoldNoId() throws Exception {
        TestPki pki = TestPki.create(dir, "redaction");
        TestPki.Pair listener = pki.issue("gateway");
        try (ScriptedUpstream scripted = new ScriptedUpstream()) {
            gateway = new GatewayHarness(
                    dir,
                    GatewayHarness.config(
                            "  tls:\n    cert_file: " + listener.cert() + "\n    key_file: " + listener.key() + "\n",
                            "",
                            GatewayHarness.oneScrapedEngine(scripted.url())),
                    Optional.of(pki.trustOnly()));
            CountDownLatch clientGone = new CountDownLatch(1);
            scripted.script = ScriptedUpstream.eventsUntilClosed(clientGone);
            try (Socket client = pki.trustOnly().getSocketFactory().createSocket("127.0.0.1", gateway.server.port())) {
                client.setSoTimeout(20_000);
                client.getOutputStream()
                        .write(("GET /v1/responses/" + ID + "?stream=true HTTP/1.1\r\nHost: gw\r\n\r\n")
                                .getBytes(StandardCharsets.ISO_8859_1));
                StringBuilder read = new StringBuilder();
                InputStream in = client.getInputStream();
                while (read.indexOf("{\"n\":0}") < 0) {
                    int b = in.read();
                    assertThat(b).as(read.toString()).isNotNegative();
                    read.append((char) b);
                }
                client.setSoLinger(true, 0);
            }
            clientGone.countDown();
            assertThat(gateway.accessLog.next().getString("end")).isEqualTo("client_gone");
            assertNothingRecordedHoldsTheId();
        }
    }

    /** The process's log at every level, every access line, the metrics and another client's answers. */
    private void assertNothingRecordedHoldsTheId() {
        assertThat(gateway.get("/v1/models").body()).doesNotContain(MARK);
        assertThat(gateway.get("/v1/files/x").body()).doesNotContain(MARK);
        assertThat(String.join("", gateway.accessLog.raw()).toLowerCase(Locale.ROOT))
                .doesNotContain(MARK);
        assertThat(gateway.metrics().toLowerCase(Locale.ROOT)).doesNotContain(MARK);
        assertThat(logged)
                .noneSatisfy(l -> assertThat(l.toLowerCase(Locale.ROOT)).contains(MARK));
    }
}
