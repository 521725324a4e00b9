package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.RefusingPort;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.RecordedRequest;
import grid.gateway.routing.tag.ClusterDigest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access log on real sockets: one line per request with its fields, for an answered, a pinned, a refused request,
 * a client that leaves mid-stream and an upstream that cuts its answer; nothing secret in it; none when off.
 */
class AccessLogIntegrationTest {
    private static final String SALT = "salt-never-logged-7f3a";
    private static final String PROMPT = "prompt-text-never-logged";
    private static final String CHAT = "{\"model\":\"demo-model\",\"cache_salt\":\"" + SALT
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + PROMPT + "\"}]}";

    @TempDir
    Path dir;

    private GatewayHarness gateway;
    private ScriptedUpstream scripted;

    @AfterEach
    void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (scripted != null) {
            scripted.close();
        }
    }

    private EngineSimulator engine(String gatewayExtra) {
        EngineSimulator engine = GatewayHarness.engine("east-a");
        gateway = new GatewayHarness(
                dir, GatewayHarness.config(gatewayExtra, GatewayHarness.oneEngine(engine.url())), engine);
        return engine;
    }

    private void scriptedEngine() throws Exception {
        scripted = new ScriptedUpstream();
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneScrapedEngine(scripted.url())));
    }

    @Test
    void answered_everyFieldSet_secretsNeverWritten() {
        EngineSimulator engine = engine("");
        HttpResponse<String> answer =
                gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/chat/completions?key=q-secret"))
                        .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer sk-auth-secret")
                        .header("x-api-key", "api-key-secret")
                        .header("X-Request-Id", "client-id_1.2:3")
                        .build());

        assertThat(answer.statusCode()).isEqualTo(200);
        JsonObject line = gateway.accessLog.next();
        assertThat(line.getString("time")).isEqualTo("2026-01-02T03:04:05.678Z");
        assertThat(line.getString("request_id")).isEqualTo("client-id_1.2:3");
        assertThat(line.getString("method")).isEqualTo("POST");
        assertThat(line.getString("path")).isEqualTo("/v1/chat/completions");
        assertThat(line.getInt("status")).isEqualTo(200);
        assertThat(line.getString("site")).isEqualTo("east");
        assertThat(line.getString("cluster")).isEqualTo("east-a");
        assertThat(line.getBoolean("pinned")).isFalse();
        assertThat(line.getInt("candidates")).isEqualTo(1);
        assertThat(line.getInt("run_blocks")).isZero();
        assertThat(line.getInt("predicted_cached_tokens")).isZero();
        // The prompt is shorter than a block, so the engine, as vLLM, reports no cached tokens at all
        // (prompt_tokens_details: null): the field is there, and null rather than a made-up 0.
        assertThat(line.get("reported_cached_tokens")).isEqualTo(JsonValue.NULL);
        assertThat(line.getInt("upstream_status")).isEqualTo(200);
        assertThat(line.get("upstream_failure")).isEqualTo(JsonValue.NULL);
        assertThat(line.getJsonNumber("upstream_headers_ms").doubleValue()).isGreaterThanOrEqualTo(0);
        assertThat(line.getJsonNumber("total_ms").doubleValue()).isGreaterThanOrEqualTo(0);
        assertThat(line.getInt("bytes_in")).isEqualTo(CHAT.length());
        assertThat(line.getInt("bytes_out")).isEqualTo(answer.body().length());
        assertThat(line.getString("client")).isEqualTo("127.0.0.1");
        assertThat(line.getString("end")).isEqualTo("answered");
        assertThat(String.join("", gateway.accessLog.raw()) + line)
                .doesNotContain("sk-auth-secret", "api-key-secret", "q-secret", SALT, PROMPT);
        // The client's id reaches the engine and comes back.
        assertThat(answer.headers().firstValue("X-Request-Id")).contains("client-id_1.2:3");
        assertThat(GatewayHarness.take(engine).header("x-request-id")).contains("client-id_1.2:3");
    }

    @Test
    void candidates_countsTheAdmittedClustersServingTheModel_notADrainingOne() {
        EngineSimulator engine = GatewayHarness.engine("east-a");
        String sites = GatewayHarness.oneEngine(engine.url()) + """
                      - name: east-b
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [demo-model]
                      - name: east-c
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [demo-model]
                        draining: true
                      - name: east-other
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [other-model]
                """.formatted(engine.url(), engine.url(), engine.url());
        gateway = new GatewayHarness(dir, GatewayHarness.config("", sites), engine);

        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);

        // Three clusters serve demo-model; east-c drains, so two are candidates (the spec's word: admitted and
        // serving).
        assertThat(gateway.accessLog.next().getInt("candidates")).isEqualTo(2);
    }

    @Test
    void pinned_pathStoredIdReplaced_itsTagsClusterLogged() {
        engine("");
        HttpResponse<String> created = gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
        assertThat(gateway.accessLog.next().getString("path")).isEqualTo("/v1/responses");
        String prefix = "resp_east." + ClusterDigest.of("east-a") + "..";
        int at = created.body().indexOf("\"id\":\"" + prefix) + 6;
        String tagged = created.body().substring(at, created.body().indexOf('"', at));
        String bare = tagged.substring(prefix.length());

        assertThat(gateway.get("/v1/responses/" + tagged).statusCode()).isEqualTo(200);

        JsonObject line = gateway.accessLog.next();
        assertThat(line.getString("path")).isEqualTo("/v1/responses/{id}");
        assertThat(line.getString("stored_id_site")).isEqualTo("east");
        assertThat(line.getString("stored_id_cluster")).isEqualTo("east-a");
        assertThat(line.getBoolean("pinned")).isTrue();
        assertThat(line.getString("cluster")).isEqualTo("east-a");
        assertThat(line.get("affinity")).isEqualTo(JsonValue.NULL);
        assertThat(line.get("candidates")).isEqualTo(JsonValue.NULL);
        assertThat(line.getString("end")).isEqualTo("answered");
        assertThat(line.toString()).doesNotContain(bare);
        // The stored response read back carries the usage of the request that made it: not this request's.
        assertThat(gateway.get("/v1/responses/" + tagged).body()).contains("\"usage\":{");
        assertThat(gateway.accessLog.next().get("reported_cached_tokens"))
                .as("a read of a stored response computed no prompt")
                .isEqualTo(JsonValue.NULL);
    }

    @Test
    void unservedSubPathsOfAStoredId_refused404_theIdRedactedFromTheLine() {
        engine("");
        HttpResponse<String> created = gateway.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
        gateway.accessLog.next();
        String prefix = "resp_east." + ClusterDigest.of("east-a") + "..";
        int at = created.body().indexOf("\"id\":\"" + prefix) + 6;
        String tagged = created.body().substring(at, created.body().indexOf('"', at));
        String secret = tagged.substring(prefix.length() - 2);

        for (String[] asked : new String[][] {
            {"/v1/responses/" + tagged + "/Cancel", "/v1/responses/{id}/Cancel"},
            {"/v1/responses/" + tagged + "/input_items/extra", "/v1/responses/{id}/input_items/extra"},
            {"/v1/conversations/" + tagged + "/items/x/y", "/v1/conversations/{id}/items/x/y"},
            {"/v1/files/" + tagged, "/v1/files/{id}"},
        }) {
            assertThat(gateway.get(asked[0]).statusCode()).as(asked[0]).isEqualTo(404);
            JsonObject line = gateway.accessLog.next();
            assertThat(line.getString("path")).isEqualTo(asked[1]);
            assertThat(line.toString()).as(asked[0]).doesNotContain(secret);
        }
    }

    @Test
    void refused413_generatedIdOnTheAnswerInTheLineAndInTheErrorBody() throws Exception {
        engine("");
        RawClient.Answer answer;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", "x".repeat(5_000));
            answer = client.read();
        }

        assertThat(answer.status()).isEqualTo(413);
        JsonObject line = gateway.accessLog.next();
        String id = line.getString("request_id");
        assertThat(id).startsWith("req-");
        assertThat(answer.head()).containsIgnoringCase("x-request-id: " + id + "\r\n");
        assertThat(answer.body()).contains("\"code\":\"request_too_large\",\"request_id\":\"" + id + "\"}}");
        assertThat(line.getInt("status")).isEqualTo(413);
        assertThat(line.getString("end")).isEqualTo("refused");
        assertThat(line.get("cluster")).isEqualTo(JsonValue.NULL);
        assertThat(line.get("upstream_status")).isEqualTo(JsonValue.NULL);
        assertThat(line.getInt("bytes_in")).isZero();
        assertThat(line.getInt("bytes_out")).isEqualTo(answer.body().length());
    }

    @Test
    void refused404_storedIdOfNoClusterRedacted_anthropicBodyCarriesTopLevelRequestId() {
        engine("");
        String forged = "resp_north." + ClusterDigest.of("east-a") + "..0123456789abcdef";
        HttpResponse<String> notFound = gateway.get("/v1/responses/" + forged);
        assertThat(notFound.statusCode()).isEqualTo(404);
        JsonObject line = gateway.accessLog.next();
        assertThat(line.getString("path")).isEqualTo("/v1/responses/{id}");
        assertThat(line.get("stored_id_site")).isEqualTo(JsonValue.NULL);
        assertThat(line.getString("end")).isEqualTo("refused");
        assertThat(line.toString()).doesNotContain("0123456789abcdef");

        HttpResponse<String> messages = gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/messages"))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"model\":\"no-such-model\",\"max_tokens\":1,\"messages\":[]}"))
                .header("X-Request-Id", "x".repeat(129))
                .build());
        assertThat(messages.statusCode()).isEqualTo(404);
        String id = messages.headers().firstValue("X-Request-Id").orElseThrow();
        assertThat(id).as("an id over 128 chars is replaced").startsWith("req-");
        assertThat(messages.body()).startsWith("{\"type\":\"error\",").endsWith(",\"request_id\":\"" + id + "\"}");
        assertThat(gateway.accessLog.next().getString("request_id")).isEqualTo(id);

        HttpResponse<String> wrongMethod = gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                .DELETE()
                .header("X-Request-Id", "two words")
                .build());
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        String replaced = wrongMethod.headers().firstValue("X-Request-Id").orElseThrow();
        assertThat(replaced).startsWith("req-");
        assertThat(wrongMethod.body()).contains("\"request_id\":\"" + replaced + "\"");
        assertThat(gateway.accessLog.next().getInt("status")).isEqualTo(405);
    }

    /**
     * A head Helidon's parser refuses before any routing (a space before a colon, a request line over its limit,
     * HTTP/1.0) is a client request the gateway answers too: its line is written, and its answer and error body carry
     * the request id, as every other answer of the gateway's does.
     */
    @Test
    void refusedByTheParser_oneLineEach_requestIdOnTheAnswerAndInTheBody() throws Exception {
        engine("");
        String[][] refused = {
            {
                "POST /v1/messages?key=q-secret HTTP/1.1\r\nHost: gw\r\nX-Request-Id: bad-head-1\r\nBad : x\r\n"
                        + "Content-Length: 2\r\n\r\n{}",
                "400",
                "POST",
                "/v1/messages"
            },
            {"GET /v1/responses/resp_" + "x".repeat(20_000) + " HTTP/1.1\r\nHost: gw\r\n\r\n", "414", null, null},
            {"GET /v1/models HTTP/1.0\r\nX-Request-Id: old-1\r\n\r\n", "505", "GET", "/v1/models"},
        };
        for (String[] request : refused) {
            RawClient.Answer answer;
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.send(request[0]);
                answer = client.read();
            }
            assertThat(answer.status()).isEqualTo(Integer.parseInt(request[1]));
            JsonObject line = gateway.accessLog.next();
            // The head was not read whole, so the client's X-Request-Id is not known: a new id, as for a missing one.
            String id = line.getString("request_id");
            assertThat(id).startsWith("req-");
            assertThat(answer.header("X-Request-Id")).isEqualTo(id);
            assertThat(answer.body()).contains("\"request_id\":\"" + id + "\"");
            assertThat(line.getInt("status")).isEqualTo(Integer.parseInt(request[1]));
            // A request line over its limit is not read: its method and path are not known.
            assertThat(line.get("method"))
                    .isEqualTo(request[2] == null ? JsonValue.NULL : Json.createValue(request[2]));
            assertThat(line.get("path")).isEqualTo(request[3] == null ? JsonValue.NULL : Json.createValue(request[3]));
            assertThat(line.getString("end")).isEqualTo("refused");
            assertThat(line.get("cluster")).isEqualTo(JsonValue.NULL);
            assertThat(line.getInt("bytes_out")).isEqualTo(answer.body().length());
            assertThat(line.getString("client")).isEqualTo("127.0.0.1");
            assertThat(line.toString()).doesNotContain("q-secret", "xxxxxxxx");
        }
        assertThat(gateway.accessLog.raw()).isEmpty();
    }

    @Test
    void malformedId_replacedBeforeItReachesTheEngine() {
        EngineSimulator engine = engine("");
        HttpResponse<String> answer = gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                .header("X-Request-Id", "id\"with{quote}")
                .build());
        String id = answer.headers().firstValue("X-Request-Id").orElseThrow();
        assertThat(id).startsWith("req-");
        RecordedRequest received = GatewayHarness.take(engine);
        assertThat(received.header("x-request-id")).contains(id);
        assertThat(gateway.accessLog.next().getString("request_id")).isEqualTo(id);
    }

    @Test
    void clientLeavesMidStream_clientGone() throws Exception {
        scriptedEngine();
        CountDownLatch clientGone = new CountDownLatch(1);
        scripted.script = ScriptedUpstream.eventsUntilClosed(clientGone);
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamFaultsIntegrationTest.STREAM);
            assertThat(client.readUntil("{\"n\":0}")).endsWith("{\"n\":0}");
        }
        clientGone.countDown();

        JsonObject line = gateway.accessLog.next();
        assertThat(line.getString("end")).isEqualTo("client_gone");
        assertThat(line.getInt("status")).isEqualTo(200);
        assertThat(line.getInt("upstream_status")).isEqualTo(200);
        assertThat(line.getInt("bytes_out")).isGreaterThanOrEqualTo("data: {\"n\":0}\n\n".length());
    }

    @Test
    void upstreamResetsMidStream_upstreamCut() throws Exception {
        scriptedEngine();
        scripted.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD);
            e.write(UpstreamFaultsIntegrationTest.chunk("data: {\"n\":0}\n\n"));
            e.reset();
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamFaultsIntegrationTest.STREAM);
            assertThat(client.read().complete()).isFalse();
        }

        JsonObject line = gateway.accessLog.next();
        assertThat(line.getString("end")).isEqualTo("upstream_cut");
        assertThat(line.getInt("status")).isEqualTo(200);
        assertThat(line.getString("cluster")).isEqualTo("east-a");
        assertThat(line.getInt("bytes_out")).isEqualTo("data: {\"n\":0}\n\n".length());
    }

    @Test
    void upstreamRefusesConnections_refusedWithTheFailure() {
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        "",
                        GatewayHarness.oneScrapedEngine(RefusingPort.shared().url())));
        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(502);
        JsonObject line = gateway.accessLog.next();
        assertThat(line.getString("end")).isEqualTo("refused");
        assertThat(line.getString("upstream_failure")).isEqualTo("connect");
        assertThat(line.getString("cluster")).isEqualTo("east-a");
    }

    @Test
    void accessLogOff_writesNothing_requestIdStillReturned_clientAddressStillForwarded() {
        EngineSimulator engine = engine("  access_log: \"off\"");
        HttpResponse<String> off = gateway.post("/v1/chat/completions", CHAT);
        assertThat(off.statusCode()).isEqualTo(200);
        assertThat(off.headers().firstValue("X-Request-Id")).contains("req-1");
        // Unlogged, the proxy builds the client's address itself (logged, it forwards the access filter's text).
        assertThat(GatewayHarness.take(engine).header("x-forwarded-for")).contains("127.0.0.1");

        // Back on by a reload: the next request's line is the only one.
        gateway.server.apply(gateway.snapshot(GatewayHarness.config("", GatewayHarness.oneEngine(engine.url()))));
        gateway.post("/v1/chat/completions", CHAT);
        assertThat(gateway.accessLog.next().getString("request_id")).isEqualTo("req-2");
        assertThat(gateway.accessLog.raw()).isEmpty();
    }
}
