package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultTest {
    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"a b c d e f g h\"}]";
    private static final String MESSAGES =
            "{\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"a b c d e f g h\"}]";

    private final RecordingPacer pacer = new RecordingPacer();
    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder()
                .pacer(pacer)
                .decodeTokensPerSecond(1000)
                .start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void failNext_rateLimited_429WithRetryAfterThenNormal() throws Exception {
        engine.failNext(1, Fault.rateLimited(Duration.ofMillis(1500)));

        HttpResponse<String> limited = http.post("/v1/chat/completions", CHAT + "}");
        HttpResponse<String> next = http.post("/v1/chat/completions", CHAT + "}");

        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("retry-after")).contains("2");
        JsonObject error = SimHttp.json(limited).getJsonObject("error");
        assertThat(error.getString("type")).isEqualTo("RateLimitError");
        assertThat(error.getInt("code")).isEqualTo(429);
        assertThat(next.statusCode()).isEqualTo(200);
        // the refused request never reached the engine
        assertThat(http.get("/metrics").body())
                .contains(
                        "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"demo-model\"} 1.0");
    }

    @Test
    void failNext_500And503_openAiTypes() throws Exception {
        engine.failNext(1, Fault.status(500));
        engine.failNext(1, Fault.status(503, Duration.ofSeconds(5)));

        HttpResponse<String> first = http.post("/v1/completions", "{\"prompt\":\"x\"}");
        HttpResponse<String> second = http.post("/v1/responses", "{\"input\":\"x\"}");

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(SimHttp.json(first).getJsonObject("error").getString("type")).isEqualTo("InternalServerError");
        assertThat(second.statusCode()).isEqualTo(503);
        assertThat(second.headers().firstValue("retry-after")).contains("5");
        assertThat(SimHttp.json(second).getJsonObject("error").getString("type"))
                .isEqualTo("ServiceUnavailableError");
    }

    @Test
    void failOnPath_onlyThatPath_anthropicShapeForMessages() throws Exception {
        engine.failOnPath("/v1/messages", EngineSimulator.ALWAYS, Fault.status(529));

        HttpResponse<String> chat = http.post("/v1/chat/completions", CHAT + "}");
        HttpResponse<String> first = http.post("/v1/messages", MESSAGES + "}");
        HttpResponse<String> second = http.post("/v1/messages", MESSAGES + "}");

        assertThat(chat.statusCode()).isEqualTo(200);
        assertThat(first.statusCode()).isEqualTo(529);
        assertThat(second.statusCode()).isEqualTo(529);
        JsonObject body = SimHttp.json(first);
        assertThat(body.getString("type")).isEqualTo("error");
        assertThat(body.getJsonObject("error").getString("type")).isEqualTo("overloaded_error");

        engine.clearFailures();

        assertThat(http.post("/v1/messages", MESSAGES + "}").statusCode()).isEqualTo(200);
    }

    @Test
    void holdFirstByte_answerWaitsForTheGate() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        engine.failNext(1, Fault.holdFirstByte(gate));

        CompletableFuture<HttpResponse<String>> answer = http.postAsync("/v1/chat/completions", CHAT + "}");

        assertThat(engine.awaitQueue(1, 0, SimHttp.TIMEOUT)).isTrue();
        assertThat(answer).isNotDone();
        gate.countDown();
        assertThat(answer.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void delayFirstByteAndPauseBetweenEvents_goThroughThePacer() throws Exception {
        engine.failNext(
                1, Fault.delayFirstByte(Duration.ofMillis(777)), Fault.pauseBetweenEvents(Duration.ofMillis(33)));

        String body =
                http.post("/v1/chat/completions", CHAT + ",\"stream\":true}").body();

        assertThat(Sse.parse(body)).hasSize(10);
        assertThat(pacer.count(Duration.ofMillis(777))).isEqualTo(1);
        // ten events, a pause before each but the first
        assertThat(pacer.count(Duration.ofMillis(33))).isEqualTo(9);
    }

    @Test
    void holdBeforeEvent_streamStopsThereUntilTheGateOpens() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        engine.failNext(1, Fault.holdBeforeEvent(2, gate));

        HttpResponse<Stream<String>> response = http.postLines("/v1/messages", MESSAGES + ",\"stream\":true}");
        Iterator<String> lines = response.body().iterator();

        assertThat(readEvents(lines, 2)).containsExactly("message_start", "content_block_start");
        assertThat(engine.running()).isEqualTo(1); // still streaming, held before event 2
        gate.countDown();
        int rest = 0;
        while (lines.hasNext()) {
            rest += lines.next().startsWith("event: ") ? 1 : 0;
        }
        assertThat(rest).isEqualTo(8 + 3);
    }

    @Test
    void resetAfterEvents_chatStream_clientSeesAnAbnormalEnd() throws Exception {
        engine.failNext(1, Fault.resetAfterEvents(3));

        HttpResponse<Stream<String>> response = http.postLines("/v1/chat/completions", CHAT + ",\"stream\":true}");
        assertThat(response.statusCode()).isEqualTo(200);
        // A reset may discard bytes the client had not read yet, so count what arrived instead of reading a fixed
        // number first: never more than the three events, never the [DONE] of a clean end, always an error.
        java.util.List<String> seen = new java.util.ArrayList<>();
        assertThatThrownBy(() -> response.body().iterator().forEachRemaining(seen::add))
                .isInstanceOf(UncheckedIOException.class)
                .hasCauseInstanceOf(IOException.class);
        assertThat(seen.stream().filter(l -> l.startsWith("data: ")).count()).isLessThanOrEqualTo(3);
        assertThat(seen).doesNotContain("data: [DONE]");
        // the simulator itself keeps serving
        assertThat(http.post("/v1/chat/completions", CHAT + "}").statusCode()).isEqualTo(200);
        assertThat(engine.awaitQueue(0, 0, SimHttp.TIMEOUT)).isTrue();
    }

    @Test
    void resetAfterEvents_responsesStream_cutAfterCreated() throws Exception {
        engine.failNext(1, Fault.resetAfterEvents(1));

        HttpResponse<Stream<String>> response = http.postLines("/v1/responses", "{\"input\":\"x\",\"stream\":true}");
        java.util.List<String> seen = new java.util.ArrayList<>();
        assertThatThrownBy(() -> response.body().iterator().forEachRemaining(seen::add))
                .isInstanceOf(UncheckedIOException.class);
        assertThat(seen.stream().filter(l -> l.startsWith("event: "))).isSubsetOf("event: response.created");
    }

    @Test
    void resetAfterEvents_zero_noAnswerAtAll() {
        engine.failNext(1, Fault.resetAfterEvents(0));

        assertThatThrownBy(() -> http.postLines("/v1/completions", "{\"prompt\":\"x\",\"stream\":true}"))
                .isInstanceOf(IOException.class);
    }

    @Test
    void resetAfterEvents_plainAnswer_bodyCutShort() {
        engine.failNext(1, Fault.resetAfterEvents(0));

        assertThatThrownBy(
                        () -> http.postAsync("/v1/chat/completions", CHAT + "}").get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void close_requestHeldOnAGateThatNeverOpens_connectionClosed() throws Exception {
        EngineSimulator other = EngineSettings.builder().instant().start();
        other.failNext(1, Fault.holdFirstByte(new CountDownLatch(1)));
        CompletableFuture<HttpResponse<String>> answer =
                new SimHttp(other).postAsync("/v1/chat/completions", CHAT + "}");
        assertThat(other.awaitQueue(1, 0, SimHttp.TIMEOUT)).isTrue();

        other.close();

        assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IOException.class);
        assertThat(other.running()).isZero();
    }

    private static java.util.List<String> readEvents(Iterator<String> lines, int count) {
        java.util.List<String> names = new java.util.ArrayList<>();
        while (names.size() < count && lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("event: ")) {
                names.add(line.substring("event: ".length()));
            }
        }
        return names;
    }

    private static java.util.List<String> readData(Iterator<String> lines, int count) {
        java.util.List<String> data = new java.util.ArrayList<>();
        while (data.size() < count && lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("data: ")) {
                data.add(line);
            }
        }
        return data;
    }
}
