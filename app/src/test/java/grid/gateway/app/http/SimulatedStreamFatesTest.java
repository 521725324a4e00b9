package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.Pacer;
import grid.gateway.routing.tag.ClusterDigest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams of the engine simulator (which paces its tokens and notes an answer its peer abandons, as vLLM aborts a
 * request whose connection closed) through the gateway, on the four streaming APIs: a client that reads to the end,
 * and one that resets or closes after a generated number of events. The engine's answer is abandoned exactly when the
 * client left; a Responses stream's tagged id names the cluster that served it, and a GET of that id is pinned there:
 * the stored response of a whole stream is served, one of an abandoned stream is whatever that engine kept (the
 * simulator keeps none: 404).
 *
 * <p>A client that leaves a stream is noticed only at the gateway's next write to it, and the engine only at its own
 * next write after the gateway closed its connection. A stream the client leaves therefore runs longer than any wait
 * of this test ({@link #LEFT_TOKENS} at the engine's pace): its engine can only end it if the gateway failed to
 * abandon it, however late each thread runs. A whole stream asks for {@link #WHOLE_TOKENS}, so its stored response
 * is {@code incomplete} (cut at the client's limit, as vLLM marks it).
 */
class SimulatedStreamFatesTest {
    private static final long SEED = 20_261_209L;
    private static final int TRIALS = 24;
    private static final String[] PATHS = {"/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/responses"};
    private static final Pattern CREATED = Pattern.compile("\"id\":\"(resp_[^\"]+)\"");
    private static final int DECODE_TOKENS_PER_SECOND = 500;
    /** The output limit of a whole stream: a short stream the client reads to its end. */
    private static final int WHOLE_TOKENS = 40;
    /** The answer of a stream the client leaves: at the engine's pace it outlasts the harness's deadline 1.5 times. */
    private static final int LEFT_TOKENS =
            (int) (GatewayHarness.DEADLINE.toSeconds() * DECODE_TOKENS_PER_SECOND * 3 / 2);

    @TempDir
    Path dir;

    private final Map<String, EngineSimulator> engines = new HashMap<>();
    private GatewayHarness gateway;

    @BeforeEach
    void start() {
        for (String name : new String[] {"east-a", "east-b"}) {
            engines.put(
                    name,
                    GatewayHarness.engineSettings(
                                    name,
                                    EngineSettings.builder()
                                            .pacer(Pacer.sleeping())
                                            .prefillTokensPerSecond(1_000_000)
                                            .decodeTokensPerSecond(DECODE_TOKENS_PER_SECOND))
                            .answerTokens(LEFT_TOKENS)
                            .start());
        }
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        "",
                        GatewayHarness.oneSite(
                                engines.get("east-a").url(),
                                engines.get("east-b").url())),
                engines.get("east-a"),
                engines.get("east-b"));
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    @Test
    void clientsLeavingOrStayingThroughSimulatedStreams_engineAbortsExactlyTheAbandoned_storedIdsPinned()
            throws Exception {
        SplittableRandom random = new SplittableRandom(SEED);
        int gets = 0;
        for (int n = 0; n < TRIALS; n++) {
            String path = PATHS[n % PATHS.length];
            int leaveAfter = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(6);
            boolean reset = random.nextBoolean();
            String id = "sim-" + n;
            String text = stream(path, id, leaveAfter, reset);
            JsonObject line = awaitLine(id);
            String cluster = line.getString("cluster");
            String trial = id + " " + path + (leaveAfter == 0 ? " whole" : " left after " + leaveAfter + " events");
            EngineSimulator served = engines.get(cluster);
            assertThat(line.getInt("upstream_status")).as(trial).isEqualTo(200);
            if (leaveAfter == 0) {
                assertThat(line.getString("end")).as(trial).isEqualTo("answered");
                assertThat(served.awaitAbandonedAnswer(Duration.ZERO)).as(trial).isFalse();
            } else {
                assertThat(line.getString("end")).as(trial).isEqualTo("client_gone");
                assertThat(served.awaitAbandonedAnswer(GatewayHarness.DEADLINE))
                        .as("%s: the engine's answer abandoned", trial)
                        .isTrue();
            }
            if (path.equals("/v1/responses")) {
                Matcher stored = CREATED.matcher(text);
                assertThat(stored.find()).as("%s: a response id", trial).isTrue();
                String tagged = stored.group(1);
                assertThat(tagged).startsWith("resp_east." + ClusterDigest.of(cluster) + "..");
                HttpResponse<String> got = gateway.get("/v1/responses/" + tagged);
                gets++;
                if (leaveAfter == 0) {
                    assertThat(got.statusCode()).as(trial).isEqualTo(200);
                    assertThat(got.body()).contains("\"id\":\"" + tagged + "\"").contains("\"status\":\"incomplete\"");
                } else {
                    assertThat(got.statusCode())
                            .as("%s: nothing stored by the simulator", trial)
                            .isEqualTo(404);
                }
            }
        }
        for (EngineSimulator engine : engines.values()) {
            assertThat(engine.awaitAbandonedAnswer(Duration.ofMillis(200)))
                    .as("no other answer abandoned")
                    .isFalse();
        }
        GatewayHarness.await("every request ended", () -> gateway.server.requestsInFlight() == 0);
        Books books = new Books(gateway.metrics());
        assertThat(books.sum("grid_route_pinned_total", "outcome", "routed")).isEqualTo(gets);
        for (String none : new String[] {
            "grid_upstream_errors_total",
            "grid_upstream_retries_total",
            "grid_requests_in_flight",
            "grid_inflight_body_bytes",
            "grid_inflight_answer_bytes"
        }) {
            assertThat(books.sum(none)).as(none).isZero();
        }
    }

    /**
     * Streams one request; leaves after {@code leaveAfter} events unless 0; returns the text read. A whole stream
     * asks for {@link #WHOLE_TOKENS}, one the client leaves for {@link #LEFT_TOKENS}.
     */
    private String stream(String path, String id, int leaveAfter, boolean reset) throws Exception {
        int limit = leaveAfter == 0 ? WHOLE_TOKENS : LEFT_TOKENS;
        String body = switch (path) {
            case "/v1/chat/completions" ->
                "{\"model\":\"demo-model\",\"max_tokens\":" + limit + ",\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"" + id + "\"}],\"stream\":true}";
            case "/v1/completions" ->
                "{\"model\":\"demo-model\",\"max_tokens\":" + limit + ",\"prompt\":\"" + id + "\",\"stream\":true}";
            case "/v1/messages" ->
                "{\"model\":\"demo-model\",\"max_tokens\":" + limit + ",\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"" + id + "\"}],\"stream\":true}";
            default ->
                "{\"model\":\"demo-model\",\"max_output_tokens\":" + limit + ",\"input\":\"" + id
                        + "\",\"stream\":true,\"store\":true}";
        };
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", gateway.server.port()));
            socket.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
            socket.getOutputStream()
                    .write(("POST " + path + " HTTP/1.1\r\nHost: gw\r\nX-Request-Id: " + id
                                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                                    + "\r\n\r\n" + body)
                            .getBytes(StandardCharsets.UTF_8));
            StringBuilder text = new StringBuilder();
            int events = 0;
            int c;
            while ((c = socket.getInputStream().read()) >= 0) {
                text.append((char) c);
                if (text.toString().endsWith("\n\n") && ++events == leaveAfter) {
                    break; // the head ends "\r\n\r\n", never "\n\n": only events are counted
                }
                if (leaveAfter == 0 && text.toString().endsWith("\r\n0\r\n\r\n")) {
                    return text.toString();
                }
            }
            if (reset) {
                socket.setSoLinger(true, 0);
            }
            return text.toString();
        }
    }

    private JsonObject awaitLine(String id) {
        JsonObject[] found = new JsonObject[1];
        GatewayHarness.await("the access line of " + id, () -> {
            for (String raw : gateway.accessLog.raw()) {
                try (var reader = Json.createReader(new StringReader(raw))) {
                    JsonObject line = reader.readObject();
                    if (line.getString("request_id").equals(id)) {
                        found[0] = line;
                        return true;
                    }
                }
            }
            return false;
        });
        return found[0];
    }
}
