package grid.gateway.conformance.outside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * design.md §5 and §9 on the packaged jar, judged from outside: stored ids carry the tag {@link ExpectedTag} computes
 * from the spec's text (SHA-256 of the cluster's name, HMAC-SHA256 of {@code <site>.<cluster>} under the key file's
 * first line), a tag signed with the file's second line is read, forged or stale tags answer 404 and a draining
 * cluster's 503 + Retry-After: 5, each counted once in {@code grid_route_pinned_total} and never in the affinity
 * outcomes; and the errors of §9 and §13 (a broken chunked body's 400 with {@code Connection: close}, 413, 404 model, 503 + Retry-After, 502, a pinned connect failure's 503) in each
 * API's own shape, Anthropic's on {@code /v1/messages}, OpenAI's elsewhere, reaching no engine.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedGrid.class)
class TagsAndErrorsTest {
    private static final String PINNED = "grid_route_pinned_total";
    private static final Pattern TAG =
            Pattern.compile("(resp|conv)_([a-z0-9-]+)\\.([0-9a-f]{8})\\.([0-9a-f]{16})\\.(.+)");
    private static final List<String> APIS =
            List.of("/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages");

    private static OutsideGrid grid;

    @BeforeAll
    static void start(SharedGrid shared) {
        assumeThat(OutsideJar.unavailable()).as("the jar cannot run").isNull();
        grid = shared.grid();
    }

    @Test
    @Order(1)
    void storedIds_carryTheTagComputedFromTheSpec_eitherKeyLineReadsThem() throws Exception {
        for (String[] create : List.of(
                new String[] {"/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hello\"}", "east"},
                new String[] {"/v1/responses", "{\"model\":\"west-model\",\"input\":\"hello\"}", "west"},
                new String[] {"/v1/conversations", "{}", "east"})) {
            Map<String, Integer> counts = grid.counts();
            HttpResponse<String> answer = grid.send("POST", create[0], create[1]);
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            List<String> served = grid.grew(counts);
            assertThat(served).hasSize(1);
            String cluster = served.getFirst();
            String tagged = OutsideGrid.json(answer).getString("id");
            Matcher m = TAG.matcher(tagged);
            assertThat(m.matches()).as(tagged).isTrue();
            String engineId = m.group(1) + "_" + m.group(5);
            assertThat(tagged).isEqualTo(ExpectedTag.of(engineId, OutsideGrid.SIGNING_KEY, create[2], cluster));
            assertThat(engineHas(cluster, create[0], engineId))
                    .as("the stripped id is the engine's")
                    .isTrue();

            String older = ExpectedTag.of(engineId, OutsideGrid.OLD_KEY, create[2], cluster);
            Map<String, Integer> again = grid.counts();
            List<OutsideGrid.Sample> before = grid.scrape();
            HttpResponse<String> read = grid.send("GET", create[0] + "/" + older, null);
            List<OutsideGrid.Sample> after = grid.scrape();

            assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
            assertThat(grid.grew(again)).containsExactly(cluster);
            assertThat(OutsideGrid.json(read).getString("id"))
                    .as("answered under the signing key")
                    .isEqualTo(tagged);
            assertThat(delta(before, after, PINNED, "outcome", "routed")).isEqualTo(1);
            assertThat(delta(before, after, PINNED)).isEqualTo(1);
            assertThat(delta(before, after, "grid_route_prefix_affinity_total")).isZero();
        }
    }

    @Test
    @Order(2)
    void forgedOrStaleTags_404_drainingCluster_503RetryAfter5_eachCountedOnce() {
        String key = OutsideGrid.SIGNING_KEY;
        List<String> notFound = List.of(
                "resp_abc123", // untagged
                "resp_east.zzzz..abc123", // malformed
                ExpectedTag.of("resp_abc123", "some-other-key-0123456789", "east", "east-a"), // a mac no key verifies
                ExpectedTag.of("resp_abc123", key, "east", "east-gone"), // a cluster not in the grid
                ExpectedTag.of("resp_abc123", key, "west", "east-a")); // a cluster of another site
        for (String id : notFound) {
            pinned("/v1/responses/" + id, 404, "not_found");
        }
        pinned("/v1/conversations/" + ExpectedTag.of("conv_abc123", key, "east", "east-gone"), 404, "not_found");
        HttpResponse<String> draining =
                pinned("/v1/responses/" + ExpectedTag.of("resp_abc123", key, "east", "east-drain"), 503, "unavailable");
        assertThat(draining.headers().allValues("retry-after")).containsExactly("5");

        // two tags naming two clusters of the grid: 400, no pinned outcome (docs/decisions.md)
        String both = "{\"model\":\"demo-model\",\"previous_response_id\":\""
                + ExpectedTag.of("resp_abc123", key, "east", "east-a") + "\",\"conversation\":{\"id\":\""
                + ExpectedTag.of("conv_abc123", key, "east", "east-b") + "\"}}";
        List<OutsideGrid.Sample> before = grid.scrape();
        HttpResponse<String> conflict = refused("POST", "/v1/responses", both);
        List<OutsideGrid.Sample> after = grid.scrape();
        shaped("/v1/responses", conflict, 400);
        assertThat(delta(before, after, PINNED)).isZero();
        assertThat(delta(before, after, "grid_route_prefix_affinity_total")).isZero();
    }

    @Test
    @Order(3)
    void clientErrors_413And404Model_inEachApisShape() {
        for (String path : APIS) {
            String padded = body(path, "demo-model").replace("\"hi\"", "\"" + "x".repeat(OutsideGrid.MAX_BODY) + "\"");
            shaped(path, refused("POST", path, padded), 413);
            shaped(path, refused("POST", path, body(path, "no-such-model")), 404);
        }
    }

    @Test
    @Order(4)
    void noAdmittedCluster_503WithRetryAfter_inEachApisShape() {
        for (String path : APIS) {
            HttpResponse<String> answer = refused("POST", path, body(path, OutsideGrid.DRAINED_MODEL));
            shaped(path, answer, 503);
            assertThat(answer.headers().firstValue("retry-after"))
                    .hasValueSatisfying(v -> assertThat(v).matches("[1-9]\\d*"));
        }
    }

    @Test
    @Order(5)
    void unreachableCluster_502_thenPinned503RetryAfter5() {
        // two connect failures, then the third (pinned); 3 in a row eject the cluster, so the order matters
        shaped(
                "/v1/chat/completions",
                refused("POST", "/v1/chat/completions", body("/v1/chat/completions", OutsideGrid.DEAD_MODEL)),
                502);
        shaped("/v1/messages", refused("POST", "/v1/messages", body("/v1/messages", OutsideGrid.DEAD_MODEL)), 502);
        HttpResponse<String> pinned = pinned(
                "/v1/responses/" + ExpectedTag.of("resp_abc123", OutsideGrid.SIGNING_KEY, "east", "east-dead"),
                503,
                "routed");
        assertThat(pinned.headers().allValues("retry-after")).containsExactly("5");
    }

    @Test
    @Order(6)
    void brokenChunkedBody_400ConnectionClose_inEachApisShape() throws Exception {
        for (String path : List.of("/v1/messages", "/v1/chat/completions")) {
            Map<String, Integer> counts = grid.counts();
            String head = "POST " + path + " HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
            RawAnswer answer = raw(head);

            assertThat(grid.grew(counts)).as(path + " reached an engine").isEmpty();
            assertThat(answer.status()).as(answer.text()).isEqualTo(400);
            assertThat(answer.head().toLowerCase(Locale.ROOT)).contains("\r\nconnection: close\r\n");
            JsonObject body = OutsideGrid.json(answer.body());
            if (path.equals("/v1/messages")) {
                assertThat(body.getString("type")).isEqualTo("error");
                assertThat(body.getJsonObject("error").getString("message")).isNotBlank();
            } else {
                assertThat(body.getJsonObject("error")).containsKeys("message", "type", "param", "code");
            }
        }
    }

    /** An answer read off a socket: its head as text, its status and its body (to the connection's close). */
    private record RawAnswer(String text, String head, int status, String body) {}

    private static RawAnswer raw(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", grid.jar.port())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            String text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            assertThat(end).as("a whole head: " + text).isPositive();
            return new RawAnswer(
                    text, text.substring(0, end + 2), Integer.parseInt(text.substring(9, 12)), text.substring(end + 4));
        }
    }

    /** GET {@code path}: answers {@code status} in OpenAI's shape, reaches no engine, counts {@code outcome} once. */
    private static HttpResponse<String> pinned(String path, int status, String outcome) {
        List<OutsideGrid.Sample> before = grid.scrape();
        HttpResponse<String> answer = refused("GET", path, null);
        List<OutsideGrid.Sample> after = grid.scrape();

        shaped(path, answer, status);
        assertThat(delta(before, after, PINNED, "outcome", outcome)).as(path).isEqualTo(1);
        assertThat(delta(before, after, PINNED)).as(path).isEqualTo(1);
        assertThat(delta(before, after, "grid_route_prefix_affinity_total")).isZero();
        return answer;
    }

    /** Sends a request that must reach no engine. */
    private static HttpResponse<String> refused(String method, String path, String json) {
        Map<String, Integer> counts = grid.counts();
        HttpResponse<String> answer = grid.send(method, path, json);
        assertThat(grid.grew(counts))
                .as(method + " " + path + " reached an engine")
                .isEmpty();
        return answer;
    }

    /** The answer has {@code status} and the error shape of the API {@code path} belongs to. */
    private static void shaped(String path, HttpResponse<String> answer, int status) {
        assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(status);
        assertThat(answer.headers().firstValue("content-type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonObject body = OutsideGrid.json(answer);
        if (path.startsWith("/v1/messages")) {
            assertThat(body.getString("type")).as(answer.body()).isEqualTo("error");
            assertThat(body.getJsonObject("error").getString("type")).isNotBlank();
            assertThat(body.getJsonObject("error").getString("message")).isNotBlank();
        } else {
            JsonObject error = body.getJsonObject("error");
            assertThat(error).as(answer.body()).containsKeys("message", "type", "param", "code");
            assertThat(error.getString("message")).isNotBlank();
            assertThat(error.getString("type")).isNotBlank();
            assertThat(error.get("param").getValueType()).isIn(JsonValue.ValueType.NULL, JsonValue.ValueType.STRING);
        }
    }

    private static String body(String path, String model) {
        return switch (path) {
            case "/v1/chat/completions" ->
                "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
            case "/v1/completions" -> "{\"model\":\"" + model + "\",\"prompt\":\"hi\",\"max_tokens\":4}";
            case "/v1/responses" -> "{\"model\":\"" + model + "\",\"input\":\"hi\"}";
            default ->
                "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        };
    }

    /** Whether {@code cluster}'s engine, asked directly, holds the stored object {@code engineId}. */
    private static boolean engineHas(String cluster, String collection, String engineId) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(grid.engines.get(cluster).url() + collection + "/" + engineId))
                .build();
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        } finally {
            grid.engines.get(cluster).takeRequest(Duration.ZERO);
        }
    }

    private static long delta(
            List<OutsideGrid.Sample> before, List<OutsideGrid.Sample> after, String name, String... labels) {
        return Math.round(OutsideGrid.sum(after, name, labels) - OutsideGrid.sum(before, name, labels));
    }
}
