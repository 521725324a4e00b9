package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.load.PrometheusQueueParser;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The recorded summary of usage objects that have no exchange of their own ({@code testdata/vllm/
 * extra_cached_responses_anthropic.json}) against the simulator set up as the recorded server (block size from the
 * recorded page): a long prompt sent twice to Responses (the second reports whole cached blocks) and to Anthropic
 * Messages (neither reports the hit, though the engine had one), a chat with {@code n} = 2 (the usage counts the
 * output of both choices, the prompt once), and the header fields of a plain chat answer.
 */
class RecordedUsageSummaryTest {
    private static final JsonObject RECORDED = Recordings.parse(
                    Recordings.text("extra_cached_responses_anthropic.json"))
            .asJsonObject();

    private final int blockSize =
            Integer.parseInt(RecordedExchangeReplayTest.cacheConfig(Recordings.text("metrics_after_probe.txt"))
                    .get("block_size"));
    private final GatewayView view = new GatewayView(blockSize);
    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder()
                .model("tiny-llama")
                .blockSize(blockSize)
                .answerTokens(64)
                .instant()
                .start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void responsesLongPromptTwice_firstCachesNothing_secondAllButThePartialLastBlock() throws Exception {
        String body = "{\"model\":\"tiny-llama\",\"max_output_tokens\":1,\"input\":\"" + longText() + "\"}";
        JsonObject first = SimHttp.json(http.post("/v1/responses", body)).getJsonObject("usage");
        JsonObject second = SimHttp.json(http.post("/v1/responses", body)).getJsonObject("usage");

        assertThat(usageFacts(first)).containsExactlyElementsOf(usageFacts(recorded("responses_long_1")));
        assertThat(usageFacts(second)).containsExactlyElementsOf(usageFacts(recorded("responses_long_2")));
        for (JsonObject usage : List.of(recorded("responses_long_2"), second)) {
            int input = usage.getInt("input_tokens");
            assertThat(usage.getJsonObject("input_tokens_details").getInt("cached_tokens"))
                    .as("whole blocks, the partial last one never: %s", usage)
                    .isEqualTo((input - 1) / blockSize * blockSize);
        }
        assertThat(second.getInt("input_tokens")).isEqualTo(first.getInt("input_tokens"));
    }

    @Test
    void anthropicLongPromptTwice_theEngineHitsItsCacheButNeitherAnswerSaysSo() throws Exception {
        String body = "{\"model\":\"tiny-llama\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\""
                + longText() + "\"}]}";
        JsonObject first = SimHttp.json(http.post("/v1/messages", body)).getJsonObject("usage");
        double hitsBefore = prefixCacheHits();
        JsonObject second = SimHttp.json(http.post("/v1/messages", body)).getJsonObject("usage");

        assertThat(usageFacts(first)).containsExactlyElementsOf(usageFacts(recorded("anthropic_long_1")));
        assertThat(usageFacts(second)).containsExactlyElementsOf(usageFacts(recorded("anthropic_long_2")));
        // Every prompt token counted as input both times, as recorded: the hit is not subtracted.
        assertThat(recorded("anthropic_long_2").getInt("input_tokens"))
                .isEqualTo(recorded("anthropic_long_1").getInt("input_tokens"));
        assertThat(second.getInt("input_tokens")).isEqualTo(first.getInt("input_tokens"));
        // The recorded second answer came 3.5 times faster: the engine did hit its cache.
        assertThat(RECORDED.getJsonObject("anthropic_long_2").getJsonNumber("s").doubleValue())
                .isLessThan(RECORDED.getJsonObject("anthropic_long_1")
                        .getJsonNumber("s")
                        .doubleValue());
        assertThat(prefixCacheHits() - hitsBefore).isPositive();
    }

    @Test
    void chatWithTwoChoices_usageCountsBothOutputsAndThePromptOnce() throws Exception {
        JsonObject recorded = RECORDED.getJsonObject("chat_n2_usage");
        // The recorded model always ran to its limit: each choice wrote half the recorded output.
        int limit = recorded.getInt("completion_tokens") / 2;
        HttpResponse<String> answer = http.post(
                "/v1/chat/completions",
                "{\"model\":\"tiny-llama\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"n\":2,"
                        + "\"max_tokens\":" + limit + "}");
        JsonObject body = SimHttp.json(answer);
        JsonObject usage = body.getJsonObject("usage");

        assertThat(usageFacts(usage)).containsExactlyElementsOf(usageFacts(recorded));
        assertThat(body.getJsonArray("choices"))
                .extracting(c -> c.asJsonObject().getInt("index"))
                .containsExactly(0, 1);
        assertThat(usage.getInt("completion_tokens")).isEqualTo(recorded.getInt("completion_tokens"));
        assertThat(usage.getInt("total_tokens")).isEqualTo(usage.getInt("prompt_tokens") + 2 * limit);
        JsonObject single = SimHttp.json(http.post(
                        "/v1/chat/completions",
                        "{\"model\":\"tiny-llama\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                                + "\"max_tokens\":" + limit + "}"))
                .getJsonObject("usage");
        assertThat(usage.getInt("prompt_tokens")).isEqualTo(single.getInt("prompt_tokens"));
    }

    @Test
    void chatAnswer_theRecordedHeaderFieldsAndNoOthers() throws Exception {
        HttpResponse<String> answer = http.post(
                "/v1/chat/completions",
                "{\"model\":\"tiny-llama\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}");
        JsonObject recorded = RECORDED.getJsonObject("chat_response_headers");

        assertThat(new TreeSet<>(answer.headers().map().keySet()))
                .containsExactlyElementsOf(new TreeSet<>(recorded.keySet()));
        Map<String, String> values = Map.of("server", "uvicorn", "content-type", "application/json", "vary", "Origin");
        values.forEach((name, value) -> {
            assertThat(recorded.getString(name)).isEqualTo(value);
            assertThat(answer.headers().firstValue(name)).contains(value);
        });
    }

    private static JsonObject recorded(String name) {
        return RECORDED.getJsonObject(name).getJsonObject("usage");
    }

    /** What the gateway reads of a usage object: its keys in order, each value's kind, cached tokens as blocks. */
    private List<String> usageFacts(JsonObject usage) {
        return view.of(200, name -> Optional.empty(), "{\"usage\":" + usage + "}").stream()
                .filter(fact -> fact.startsWith("usage"))
                .toList();
    }

    private double prefixCacheHits() throws Exception {
        return new PrometheusQueueParser()
                .sum(http.get("/metrics").body(), "vllm:prefix_cache_hits_total")
                .orElseThrow();
    }

    /** About the recorded prompts' 2,600 tokens of distinct words. */
    private static String longText() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 4 * 2_600; i++) {
            text.append("word").append(i).append(' ');
        }
        return text.toString();
    }
}
