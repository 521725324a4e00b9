package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The usage of a Completions batch (a list of prompts) as vLLM's {@code OpenAIServingCompletion} reports it: every
 * prompt's tokens and every choice's output summed, but the cached tokens of one prompt only, never a sum: in a
 * plain answer the last prompt's ({@code last_final_res.num_cached_tokens}), in a stream the prompt whose output came
 * first (the simulator runs the prompts in turn, so the first).
 */
class CompletionsBatchUsageTest {
    /** Several whole blocks of 16 simulated tokens: cached when sent again. */
    private static final String LONG = "You are a careful assistant. ".repeat(12);
    /** Less than one block: never cached. */
    private static final String SHORT = "zz short";

    private EngineSimulator engine;
    private SimHttp http;
    private int longCached;

    @BeforeEach
    void start() throws Exception {
        engine = EngineSettings.builder().model("m").instant().start();
        http = new SimHttp(engine);
        http.post("/v1/completions", batch(List.of(LONG), ""));
        longCached = SimHttp.json(http.post("/v1/completions", batch(List.of(LONG), "")))
                .getJsonObject("usage")
                .getJsonObject("prompt_tokens_details")
                .getInt("cached_tokens");
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void plain_theLastPromptsCachedTokens_notTheirSum() throws Exception {
        JsonObject both = usage(List.of(LONG, LONG));
        JsonObject lastCached = usage(List.of(SHORT, LONG));
        JsonObject lastCold = usage(List.of(LONG, SHORT));

        assertThat(longCached).isPositive();
        assertThat(both.getJsonObject("prompt_tokens_details").getInt("cached_tokens"))
                .isEqualTo(longCached);
        assertThat(lastCached.getJsonObject("prompt_tokens_details").getInt("cached_tokens"))
                .isEqualTo(longCached);
        assertThat(lastCold.isNull("prompt_tokens_details")).isTrue();
        assertThat(lastCold.getInt("prompt_tokens"))
                .isEqualTo(lastCached.getInt("prompt_tokens"))
                .isGreaterThan(both.getInt("prompt_tokens") / 2);
    }

    @Test
    void stream_theFirstPromptsCachedTokens() throws Exception {
        JsonObject firstCached = streamedUsage(List.of(LONG, SHORT));
        JsonObject firstCold = streamedUsage(List.of(SHORT, LONG));
        JsonObject both = streamedUsage(List.of(LONG, LONG));

        assertThat(firstCached.getJsonObject("prompt_tokens_details").getInt("cached_tokens"))
                .isEqualTo(longCached);
        assertThat(firstCold.containsKey("prompt_tokens_details")).isFalse();
        assertThat(both.getJsonObject("prompt_tokens_details").getInt("cached_tokens"))
                .isEqualTo(longCached);
        assertThat(firstCold.getInt("prompt_tokens")).isEqualTo(firstCached.getInt("prompt_tokens"));
    }

    private JsonObject usage(List<String> prompts) throws Exception {
        return SimHttp.json(http.post("/v1/completions", batch(prompts, ""))).getJsonObject("usage");
    }

    private JsonObject streamedUsage(List<String> prompts) throws Exception {
        List<Sse> events = Sse.parse(http.post(
                        "/v1/completions",
                        batch(prompts, ",\"stream\":true,\"stream_options\":{\"include_usage\":true}"))
                .body());
        return events.get(events.size() - 2).json().getJsonObject("usage");
    }

    private static String batch(List<String> prompts, String more) {
        return "{\"model\":\"m\",\"max_tokens\":2,\"prompt\":[\"" + String.join("\",\"", prompts) + "\"]" + more + "}";
    }
}
