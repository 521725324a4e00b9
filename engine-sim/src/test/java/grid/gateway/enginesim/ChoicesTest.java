package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.load.PrometheusQueueParser;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code n} choices in Chat Completions and Completions, plain and streamed: one choice per index, the usage of all
 * of them as vLLM counts it ({@code testdata/vllm/extra_cached_responses_anthropic.json}, {@code chat_n2_usage}: the
 * prompt once, every choice's output), the role chunks of a stream first, and {@code n} below 1 refused.
 */
class ChoicesTest {
    private static final String CHAT =
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}]," + "\"max_tokens\":3";

    private final EngineSimulator engine =
            EngineSettings.builder().model("m").answerTokens(8).instant().start();
    private final SimHttp http = new SimHttp(engine);

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void chatStream_roleChunkOfEveryChoiceFirst_thenEachChoiceToItsFinish_thenTheUsageOfAll() throws Exception {
        HttpResponse<String> answer = http.post(
                "/v1/chat/completions",
                CHAT + ",\"n\":2,\"stream\":true,\"stream_options\":{\"include_usage\":true,"
                        + "\"continuous_usage_stats\":true}}");

        List<Sse> events = Sse.parse(answer.body());
        assertThat(events.getLast().data()).isEqualTo("[DONE]");
        List<JsonObject> chunks =
                events.subList(0, events.size() - 1).stream().map(Sse::json).toList();
        JsonObject usage = chunks.getLast().getJsonObject("usage");
        assertThat(chunks.getLast().getJsonArray("choices")).isEmpty();
        assertThat(usage.getInt("completion_tokens")).isEqualTo(6);
        List<JsonObject> choices = chunks.subList(0, chunks.size() - 1).stream()
                .map(c -> c.getJsonArray("choices").getJsonObject(0))
                .toList();
        assertThat(choices.subList(0, 2))
                .extracting(
                        c -> c.getInt("index") + " " + c.getJsonObject("delta").getString("role"))
                .containsExactly("0 assistant", "1 assistant");
        assertThat(choices.subList(2, choices.size()))
                .extracting(c -> c.getInt("index") + " " + c.get("finish_reason"))
                .containsExactly("0 null", "0 null", "0 \"length\"", "1 null", "1 null", "1 \"length\"");
        // Continuous usage counts the chunk's own choice, as vLLM's does.
        assertThat(chunks.subList(2, chunks.size() - 1))
                .extracting(c -> c.getJsonObject("usage").getInt("completion_tokens"))
                .containsExactly(1, 2, 3, 1, 2, 3);
        assertThat(usage.getInt("prompt_tokens"))
                .isEqualTo(chunks.getFirst().getJsonObject("usage").getInt("prompt_tokens"));
    }

    @Test
    void completions_twoPromptsTwoChoicesEach_indexedPromptTimesNPlusChoice_usageOfAll() throws Exception {
        JsonObject one = SimHttp.json(http.post("/v1/completions", "{\"prompt\":\"alpha beta\",\"max_tokens\":3}"));
        JsonObject two = SimHttp.json(http.post("/v1/completions", "{\"prompt\":\"gamma\",\"max_tokens\":3}"));

        JsonObject both = SimHttp.json(
                http.post("/v1/completions", "{\"prompt\":[\"alpha beta\",\"gamma\"],\"max_tokens\":3,\"n\":2}"));

        assertThat(both.getJsonArray("choices"))
                .extracting(c -> c.asJsonObject().getInt("index") + " "
                        + c.asJsonObject().getString("text"))
                .containsExactly(
                        "0 alpha beta alpha", "1 alpha beta alpha", "2 gamma gamma gamma", "3 gamma gamma gamma");
        JsonObject usage = both.getJsonObject("usage");
        assertThat(usage.getInt("prompt_tokens"))
                .isEqualTo(one.getJsonObject("usage").getInt("prompt_tokens")
                        + two.getJsonObject("usage").getInt("prompt_tokens"));
        assertThat(usage.getInt("completion_tokens")).isEqualTo(12);
    }

    @Test
    void completionsStream_continuousUsageIsEachChunksOwnPromptAndChoice() throws Exception {
        HttpResponse<String> answer = http.post(
                "/v1/completions",
                "{\"prompt\":[\"alpha beta\",\"gamma\"],\"max_tokens\":2,\"stream\":true,"
                        + "\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":true}}");

        List<Sse> events = Sse.parse(answer.body());
        List<JsonObject> chunks =
                events.subList(0, events.size() - 1).stream().map(Sse::json).toList();
        List<JsonObject> tokens = chunks.subList(0, chunks.size() - 1);
        assertThat(tokens)
                .extracting(c -> c.getJsonArray("choices").getJsonObject(0).getInt("index") + " "
                        + c.getJsonObject("usage").getInt("completion_tokens"))
                .containsExactly("0 1", "0 2", "1 1", "1 2");
        int first = tokens.getFirst().getJsonObject("usage").getInt("prompt_tokens");
        int second = tokens.getLast().getJsonObject("usage").getInt("prompt_tokens");
        assertThat(chunks.getLast().getJsonObject("usage").getInt("prompt_tokens"))
                .isEqualTo(first + second);
        assertThat(chunks.getLast().getJsonObject("usage").getInt("completion_tokens"))
                .isEqualTo(4);
    }

    @Test
    void nBelowOne_400InVllmsWords_noEngineRequest() throws Exception {
        for (String path : List.of("/v1/chat/completions", "/v1/completions")) {
            String body = path.endsWith("chat/completions") ? CHAT + ",\"n\":0}" : "{\"prompt\":\"x\",\"n\":0}";
            HttpResponse<String> answer = http.post(path, body);

            assertThat(answer.statusCode()).isEqualTo(400);
            JsonObject error = SimHttp.json(answer).getJsonObject("error");
            assertThat(error.getString("message")).isEqualTo("n must be at least 1, got 0.");
            assertThat(error.getString("param")).isEqualTo("n");
        }
        HttpResponse<String> wrongType = http.post("/v1/chat/completions", CHAT + ",\"n\":\"two\"}");
        assertThat(wrongType.statusCode()).isEqualTo(400);
        assertThat(SimHttp.json(wrongType).getJsonObject("error").getString("type"))
                .isEqualTo(RequestRejected.VALIDATION_TYPE);
        assertThat(new PrometheusQueueParser().sum(http.get("/metrics").body(), "vllm:prompt_tokens_total"))
                .hasValue(0);
    }
}
