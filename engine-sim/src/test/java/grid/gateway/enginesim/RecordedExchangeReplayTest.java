package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * Replays every exchange recorded from a real vLLM server ({@code testdata/vllm/*.json}) against a simulator set up
 * as that server was (model, {@code max_model_len}, block size and cache, all read from the recordings), and checks
 * that the simulator's answer looks the same to the gateway ({@link GatewayView}): status, content type, connection
 * close, the shape of every id the tagger rewrites, every usage object, the error body, the SSE framing; and the
 * same header fields, no more and no fewer (their names' case and order are Helidon's: docs/development.md). A
 * recorded answer that is not a stream is asked for once more on a connection of its own, whose next request finds
 * the connection ended when the recorded server closed it ({@code connection: close}) and answered otherwise.
 *
 * <p>Rules, so that no file is special-cased by name:
 *
 * <ul>
 *   <li>A file is an exchange when it holds a {@code request} (method, path) and a {@code response} (status); the
 *       others are listed with the reason ({@link Recordings#notAnExchange}).
 *   <li>Exchanges run in file-name order, except that an exchange naming a {@code resp_} id runs after the one whose
 *       answer made it, and a GET of an id after the other requests naming it; recorded ids are replaced by the
 *       simulator's.
 *   <li>A background create is held (its first byte never comes during the replay), as the recorded 256-token run
 *       still was when the cancel came.
 *   <li>The recorded model has random weights and always ran to its output limit, so the simulator's natural answer
 *       is longer than any recorded limit.
 *   <li>Deliberate difference: the simulator serves only what the gateway forwards (or answers itself) and
 *       {@code /health}; an exchange the recorded server answered 2xx on any other path is not compared (the
 *       simulator answers 404 there, as it does, and must, for every path the recorded server answered 404 on).
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RecordedExchangeReplayTest {
    /** What the gateway forwards to an engine or answers itself, and {@code /health}. */
    private static final Pattern GATEWAY_PATHS = Pattern.compile("/v1/(chat/completions|completions|messages"
            + "|messages/count_tokens|responses|responses/[^/]+(/cancel|/input_items)?|conversations(/.*)?|models)"
            + "|/health");

    private static final Pattern RESPONSE_ID = Pattern.compile("resp_[0-9a-f]+");
    private static final Pattern CACHE_CONFIG = Pattern.compile("vllm:cache_config_info\\{([^}]*)}");

    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, String> ids = new HashMap<>();
    private final CountDownLatch background = new CountDownLatch(1);
    private final List<String> notCompared = new ArrayList<>();
    private EngineSimulator engine;
    private GatewayView view;

    @BeforeAll
    void start() {
        JsonObject model = Recordings.exchange(Recordings.dir().resolve("get_v1_models.json"))
                .json()
                .orElseThrow()
                .asJsonObject()
                .getJsonArray("data")
                .getJsonObject(0);
        Map<String, String> cache = cacheConfig(Recordings.text("metrics_after_probe.txt"));
        int blockSize = Integer.parseInt(cache.get("block_size"));
        engine = EngineSettings.builder()
                .model(model.getString("id"))
                .maxModelLen(model.getInt("max_model_len"))
                .blockSize(blockSize)
                .cacheBlocks(Integer.parseInt(cache.get("num_gpu_blocks")))
                .answerTokens(longestLimit() + 1)
                .instant()
                .start();
        view = new GatewayView(blockSize);
    }

    @AfterAll
    void stop() {
        background.countDown();
        engine.close();
        System.out.println("recorded exchanges not compared (outside what the gateway forwards): " + notCompared);
    }

    @Test
    void everyJsonFile_anExchangeOrSkippedWithItsReason() {
        List<String> skipped = new ArrayList<>();
        for (Path file : Recordings.jsonFiles()) {
            Recordings.notAnExchange(file).ifPresent(skipped::add);
        }
        System.out.println("recordings that are not exchanges: " + skipped);

        // The burst polls (load_*.json), the KV events and the cached-usage summary: each for its own tests.
        assertThat(skipped).hasSizeLessThan(Recordings.jsonFiles().size() / 4);
        assertThat(exchanges()).hasSize(Recordings.jsonFiles().size() - skipped.size());
    }

    @Test
    void everyRawStream_isTheRawOfItsExchange() {
        for (Recordings.Exchange exchange : exchanges()) {
            exchange.raw()
                    .ifPresent(raw -> assertThat(Recordings.text(exchange.name() + ".sse.txt"))
                            .isEqualTo(raw));
        }
    }

    @TestFactory
    Stream<DynamicTest> everyRecordedExchange_looksTheSameToTheGateway() {
        return ordered(exchanges()).stream()
                .map(exchange -> DynamicTest.dynamicTest(exchange.name(), () -> replay(exchange)));
    }

    private void replay(Recordings.Exchange recorded) throws Exception {
        String path = substitute(recorded.path());
        Optional<String> body = recorded.body().map(this::substitute);
        if (body.filter(b -> b.contains("\"background\":true")).isPresent()) {
            engine.failNext(1, Fault.holdFirstByte(background));
        }
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(engine.url() + path)).timeout(SimHttp.TIMEOUT);
        if (body.isPresent()) {
            request.header("Content-Type", "application/json");
        }
        request.method(
                recorded.method(),
                body.map(HttpRequest.BodyPublishers::ofString).orElse(HttpRequest.BodyPublishers.noBody()));
        HttpResponse<String> answer = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String recordedBody = recorded.raw()
                .orElseGet(() -> recorded.json().map(JsonValue::toString).orElse(""));

        if (!GATEWAY_PATHS.matcher(recorded.path()).matches() && recorded.status() < 300) {
            notCompared.add(recorded.name());
            assertThat(answer.statusCode()).isEqualTo(404);
            return;
        }
        learnIds(recordedBody, answer.body());
        assertThat(view.of(answer.statusCode(), answer.headers()::firstValue, answer.body()))
                .as("%s %s: the simulator's answer, as the gateway reads it", recorded.method(), path)
                .containsExactlyElementsOf(view.of(recorded.status(), recorded::header, recordedBody));
        assertThat(new TreeSet<>(answer.headers().map().keySet().stream()
                        .map(name -> name.toLowerCase(Locale.ROOT))
                        .toList()))
                .as("%s %s: the simulator's header fields, no more and no fewer than recorded", recorded.method(), path)
                .containsExactlyElementsOf(new TreeSet<>(recorded.headers().keySet()));
        if (recorded.raw().isEmpty()) {
            connectionFate(recorded, path, body);
        }
    }

    /**
     * The recorded request again on a connection of its own, then a second request on it: after an answer the
     * recorded server closed ({@code connection: close}) the second finds the connection ended before any byte of
     * answer; after any other it is answered.
     */
    private void connectionFate(Recordings.Exchange recorded, String path, Optional<String> body) throws Exception {
        try (RawConnection connection = new RawConnection(engine)) {
            connection.send(recorded.method(), path, body);
            RawConnection.Answer first = connection.read();
            boolean closes =
                    recorded.header("connection").filter("close"::equals).isPresent();
            assertThat(first.headers().get("connection"))
                    .as("%s %s again: its Connection field", recorded.method(), path)
                    .isEqualTo(recorded.header("connection").orElse(null));
            if (closes) {
                connection.postIgnoringReset("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":1}");
                assertThat(connection.endsWithoutAnswer())
                        .as("%s %s: the next request on its connection", recorded.method(), path)
                        .isTrue();
            } else {
                connection.send("GET", "/v1/models", Optional.empty());
                assertThat(connection.read().status())
                        .as("%s %s: the next request on its connection", recorded.method(), path)
                        .isEqualTo(200);
            }
        }
    }

    /** Pairs the first {@code resp_} id of the recorded answer with the simulator's. */
    private void learnIds(String recorded, String simulated) {
        Matcher theirs = RESPONSE_ID.matcher(recorded);
        Matcher ours = RESPONSE_ID.matcher(simulated);
        if (theirs.find() && ours.find()) {
            ids.putIfAbsent(theirs.group(), ours.group());
        }
    }

    private String substitute(String text) {
        return RESPONSE_ID.matcher(text).replaceAll(m -> ids.getOrDefault(m.group(), m.group()));
    }

    private static List<Recordings.Exchange> exchanges() {
        return Recordings.jsonFiles().stream()
                .filter(file -> Recordings.notAnExchange(file).isEmpty())
                .map(Recordings::exchange)
                .toList();
    }

    /**
     * File-name order, except that an exchange naming an id waits for the one whose answer made it, and a GET of an
     * id for the other requests naming it.
     */
    static List<Recordings.Exchange> ordered(List<Recordings.Exchange> exchanges) {
        List<Recordings.Exchange> left = new ArrayList<>(exchanges);
        List<Recordings.Exchange> done = new ArrayList<>();
        while (!left.isEmpty()) {
            Recordings.Exchange next = left.stream()
                    .filter(e -> left.stream().noneMatch(other -> other != e && mustPrecede(other, e)))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the recordings' ids depend on each other in a cycle"));
            left.remove(next);
            done.add(next);
        }
        return done;
    }

    private static boolean mustPrecede(Recordings.Exchange first, Recordings.Exchange then) {
        Set<String> named = named(then);
        Set<String> made = made(first);
        made.retainAll(named);
        if (!made.isEmpty()) {
            return true;
        }
        Set<String> shared = named(first);
        shared.retainAll(named);
        return then.method().equals("GET") && !first.method().equals("GET") && !shared.isEmpty();
    }

    /** The response ids a request names in its path or body. */
    private static Set<String> named(Recordings.Exchange exchange) {
        Set<String> found = new LinkedHashSet<>();
        Matcher m = RESPONSE_ID.matcher(exchange.path() + " " + exchange.body().orElse(""));
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    /** The response ids an answer makes: those it carries that its request did not name. */
    private static Set<String> made(Recordings.Exchange exchange) {
        Set<String> found = new LinkedHashSet<>();
        Matcher m = RESPONSE_ID.matcher(exchange.raw()
                .orElseGet(() -> exchange.json().map(JsonValue::toString).orElse("")));
        while (m.find()) {
            found.add(m.group());
        }
        found.removeAll(named(exchange));
        return found;
    }

    /** The longest output limit any recorded request set. */
    private static int longestLimit() {
        int longest = 0;
        for (Recordings.Exchange exchange : exchanges()) {
            if (exchange.body().isPresent() && Recordings.parse(exchange.body().get()) instanceof JsonObject body) {
                for (String key : List.of("max_tokens", "max_completion_tokens", "max_output_tokens")) {
                    if (body.get(key) instanceof JsonNumber limit && limit.intValue() <= 4096) {
                        longest = Math.max(longest, limit.intValue());
                    }
                }
            }
        }
        return longest;
    }

    /** The labels of {@code vllm:cache_config_info} in a recorded page. */
    static Map<String, String> cacheConfig(String page) {
        Matcher line = CACHE_CONFIG.matcher(page);
        assertThat(line.find())
                .as("vllm:cache_config_info in the recorded page")
                .isTrue();
        Map<String, String> labels = new HashMap<>();
        Matcher label = Pattern.compile("(\\w+)=\"([^\"]*)\"").matcher(line.group(1));
        while (label.find()) {
            labels.put(label.group(1), label.group(2));
        }
        return labels;
    }
}
