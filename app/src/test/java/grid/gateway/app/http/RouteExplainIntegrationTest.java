package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.time.ManualClock;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /route/explain} on real sockets: what it says, then the same body through the client listener goes there;
 * asking changes neither the prefix memory nor the affinity counters nor the random source; bad input answers 400 (a
 * body over {@code max_body_bytes} 413). Who may ask, and how bodies are bounded: {@code RouteExplainAccessIntegrationTest}.
 */
class RouteExplainIntegrationTest {
    private static final String CHAT = "/v1/chat/completions";
    private static final Pattern RESPONSE_ID = Pattern.compile("\"id\"\\s*:\\s*\"(resp_[^\"]+)\"");

    @TempDir
    Path dir;

    private final TieRandom random = new TieRandom();
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private EngineSimulator engineA;
    private EngineSimulator engineB;
    private GatewayServer gateway;

    /**
     * The injected random source: never explores (every double is 0.5); ties keep config order, or with
     * {@code reversed} take the last tied candidate. It counts every draw.
     */
    private static final class TieRandom implements RandomGenerator {
        final AtomicInteger draws = new AtomicInteger();
        volatile boolean reversed;

        @Override
        public long nextLong() {
            draws.incrementAndGet();
            return 42;
        }

        @Override
        public double nextDouble() {
            draws.incrementAndGet();
            return 0.5;
        }

        @Override
        public int nextInt(int bound) {
            draws.incrementAndGet();
            return reversed ? bound - 1 : 0;
        }
    }

    @BeforeEach
    void start() throws IOException {
        engineA = GatewayHarness.engine("engine-a");
        engineB = GatewayHarness.engine("engine-b");
        String yaml = GatewayHarness.config(
                        GatewayHarness.routeExplain(dir), "", GatewayHarness.oneSite(engineA.url(), engineB.url()))
                .replace("max_body_bytes: 4096", "max_body_bytes: 65536");
        Path file = Files.writeString(dir.resolve("gateway.yaml"), yaml);
        gateway = GatewayServer.start(
                ConfigLoader.load(file), new GatewayRuntime(new ManualClock(), random, "127.0.0.1"));
    }

    @AfterEach
    void stop() {
        gateway.close();
        engineA.close();
        engineB.close();
    }

    /** A chat body of about 2 KiB (eight or more blocks) about {@code topic}. */
    private static String chat(String topic) {
        return "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\""
                + ("Tell me about " + topic + ". ").repeat(90) + "\"}]}";
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> explainRaw(String query, String body) {
        return send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/route/explain" + query))
                        .header("Authorization", "Bearer " + GatewayHarness.EXPLAIN_TOKEN)
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build());
    }

    private JsonObject explain(String path, String body) {
        HttpResponse<String> answer = explainRaw("?path=" + path, body);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        return Json.createReader(new StringReader(answer.body())).readObject();
    }

    private HttpResponse<String> post(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    /** The routing series of /metrics: prefix memory entries, affinity outcomes (explore too), pins. */
    private List<String> routingSeries() {
        String text = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics"))
                        .build())
                .body();
        return text.lines()
                .filter(l -> l.startsWith("grid_prefix_index_entries") || l.startsWith("grid_route_"))
                .toList();
    }

    private static boolean received(EngineSimulator engine) throws InterruptedException {
        return engine.takeRequest(Duration.ZERO).isPresent();
    }

    @Test
    void explainSaysWhere_andTheSameBodyGoesThere_whileAskingChangesNothing() throws Exception {
        // East-b learns the prompt: the first request's tie between two unmeasured clusters is drawn to east-b.
        random.reversed = true;
        assertThat(post(CHAT, chat("the grid")).statusCode()).isEqualTo(200);
        assertThat(received(engineB)).isTrue();
        random.reversed = false;

        List<String> before = routingSeries();
        int draws = random.draws.get();
        JsonObject hit = explain(CHAT, chat("the grid"));
        JsonObject miss = explain(CHAT, chat("something new"));
        assertThat(random.draws.get()).as("explain draws nothing").isEqualTo(draws);
        assertThat(routingSeries()).as("memory and counters unchanged").isEqualTo(before);
        assertThat(before).anyMatch(l -> l.startsWith("grid_route_prefix_affinity_total{outcome=\"explore\""));

        assertThat(hit.getString("outcome")).isEqualTo("hit");
        assertThat(hit.getString("cluster")).isEqualTo("east/east-b");
        assertThat(hit.getString("model")).isEqualTo("demo-model");
        int keys = hit.getInt("keys");
        assertThat(keys).isGreaterThanOrEqualTo(8);
        assertThat(hit.getInt("run")).isEqualTo(keys);
        assertThat(hit.getJsonObject("sticky").getJsonArray("clusters").getString(0))
                .isEqualTo("east/east-b");
        JsonObject gate = hit.getJsonObject("gate");
        assertThat(gate.getString("sticky")).isEqualTo("east/east-b");
        assertThat(gate.getString("other")).isEqualTo("east/east-a");
        assertThat(gate.isNull("gap")).as("both unmeasured: no queue gap").isTrue();
        assertThat(gate.getBoolean("reopens")).isFalse();
        assertThat(hit.getJsonArray("clusters")).hasSize(2);
        assertThat(hit.getJsonArray("clusters").getJsonObject(0).isNull("retention_seconds"))
                .as("a configured capacity with room: no sign of eviction")
                .isTrue();
        assertThat(hit.getJsonObject("exploration").getJsonNumber("fraction").doubleValue())
                .isEqualTo(0.02);
        assertThat(miss.getString("outcome")).isEqualTo("miss");
        assertThat(miss.getString("cluster")).isEqualTo("east/east-a");

        // The same bodies through the client listener go where explain said.
        assertThat(post(CHAT, chat("the grid")).statusCode()).isEqualTo(200);
        assertThat(received(engineB)).isTrue();
        assertThat(received(engineA)).isFalse();
        assertThat(post(CHAT, chat("something new")).statusCode()).isEqualTo(200);
        assertThat(received(engineA)).isTrue();
        assertThat(received(engineB)).isFalse();
        assertThat(routingSeries()).isNotEqualTo(before);
    }

    @Test
    void storedIds_answerThePinWithoutForwarding() throws Exception {
        HttpResponse<String> stored = post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
        Matcher id = RESPONSE_ID.matcher(stored.body());
        assertThat(id.find()).as(stored.body()).isTrue();
        String holder = received(engineA) ? "east/east-a" : "east/east-b";

        JsonObject pinned = explainJson("?method=GET&path=/v1/responses/" + id.group(1), "");
        assertThat(pinned.getString("handling")).isEqualTo("pinned");
        assertThat(pinned.getString("outcome")).isEqualTo("pinned");
        assertThat(pinned.getString("cluster")).isEqualTo(holder);

        JsonObject unknown = explainJson("?method=GET&path=/v1/responses/resp_untagged", "");
        assertThat(unknown.getString("outcome")).isEqualTo("answered_by_gateway");
        assertThat(unknown.getJsonObject("answer").getInt("status")).isEqualTo(404);
        assertThat(received(engineA) || received(engineB))
                .as("nothing forwarded")
                .isFalse();
    }

    @Test
    void unknownModel_isTheClientsFourOhFour() {
        JsonObject answer =
                explain(CHAT, "{\"model\":\"nobody\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertThat(answer.getString("outcome")).isEqualTo("answered_by_gateway");
        assertThat(answer.getJsonObject("answer").getString("error")).isEqualTo("model_not_found");
    }

    private JsonObject explainJson(String query, String body) {
        HttpResponse<String> answer = explainRaw(query, body);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return Json.createReader(new StringReader(answer.body())).readObject();
    }

    @Test
    void badInput_answers400InJson_never500() {
        assertBad(explainRaw("?path=" + CHAT, "{not json"), "invalid_json");
        assertBad(explainRaw("?path=/v1/nowhere", "{}"), "path_not_served");
        assertBad(explainRaw("?path=v1/chat/completions", "{}"), "invalid_path");
        assertBad(explainRaw("", "{}"), "missing_path");
        assertBad(explainRaw("?method=GET&path=" + CHAT, "{}"), "method_not_allowed");
        assertBad(explainRaw("?method=G%20T&path=" + CHAT, "{}"), "invalid_request");
        HttpResponse<String> tooLarge = explainRaw("?path=" + CHAT, "{\"model\":\"" + "x".repeat(70_000) + "\"}");
        assertThat(tooLarge.statusCode())
                .as("over max_body_bytes, as a client's body")
                .isEqualTo(413);
        assertThat(tooLarge.body()).contains("\"code\":\"body_too_large\"");
        // The admin listener still answers after the connection a too-large body closed.
        assertThat(explain(CHAT, chat("the grid")).getString("outcome")).isEqualTo("miss");
    }

    private static void assertBad(HttpResponse<String> answer, String code) {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
        JsonObject error =
                Json.createReader(new StringReader(answer.body())).readObject().getJsonObject("error");
        assertThat(error.getString("code")).isEqualTo(code);
        assertThat(error.getString("message")).isNotBlank();
    }
}
