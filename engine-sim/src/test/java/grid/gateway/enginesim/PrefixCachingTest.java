package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Cached tokens as each API reports them, and the prefill and decode time they save. */
class PrefixCachingTest {
    private static final String LONG = "You are a careful assistant. ".repeat(12);

    private final RecordingPacer pacer = new RecordingPacer();
    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder()
                .model("m")
                .model("m2")
                .prefillTokensPerSecond(1000)
                .decodeTokensPerSecond(50)
                .pacer(pacer)
                .start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void chat_repeatedPrompt_cachedTokensGrow_otherSaltOrModelStartsCold() throws Exception {
        int first = chatCached("m", "");
        int second = chatCached("m", "");
        int salted = chatCached("m", ",\"cache_salt\":\"tenant-b\"");
        int saltedAgain = chatCached("m", ",\"cache_salt\":\"tenant-b\"");
        int otherModel = chatCached("m2", "");

        assertThat(first).isZero();
        assertThat(second).isPositive().matches(t -> t % 16 == 0, "whole blocks");
        assertThat(salted).isZero();
        assertThat(saltedAgain).isEqualTo(second);
        assertThat(otherModel).isZero();
    }

    @Test
    void chatStream_withIncludeUsage_reportsCachedTokensInTheLastChunk() throws Exception {
        chatCached("m", "");
        String body = http.post(
                        "/v1/chat/completions",
                        chat("m", ",\"stream\":true,\"stream_options\":{\"include_usage\":true}"))
                .body();

        List<Sse> events = Sse.parse(body);
        JsonObject usage = events.get(events.size() - 2).json().getJsonObject("usage");
        assertThat(usage.getJsonObject("prompt_tokens_details").getInt("cached_tokens"))
                .isPositive();
    }

    @Test
    void responsesAndMessages_repeatedPrompt_reportCachedTokensInTheirOwnFields() throws Exception {
        String responses = "{\"model\":\"m\",\"input\":\"" + LONG + "\"";
        http.post("/v1/responses", responses + "}");
        JsonObject plain = SimHttp.json(http.post("/v1/responses", responses + "}"));
        List<Sse> stream = Sse.parse(
                http.post("/v1/responses", responses + ",\"stream\":true}").body());
        String messages =
                "{\"model\":\"m\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":\"" + LONG + "\"}]}";
        http.post("/v1/messages", messages);
        JsonObject message = SimHttp.json(http.post("/v1/messages", messages));

        assertThat(plain.getJsonObject("usage")
                        .getJsonObject("input_tokens_details")
                        .getInt("cached_tokens"))
                .isPositive();
        JsonObject completed = stream.getLast().json().getJsonObject("response");
        assertThat(completed
                        .getJsonObject("usage")
                        .getJsonObject("input_tokens_details")
                        .getInt("cached_tokens"))
                .isPositive();
        JsonObject usage = message.getJsonObject("usage");
        assertThat(usage.getInt("cache_read_input_tokens")).isPositive();
        // Anthropic's input_tokens leaves out what was read from the cache
        assertThat(usage.getInt("input_tokens") + usage.getInt("cache_read_input_tokens"))
                .isEqualTo(SimHttp.json(http.post("/v1/messages/count_tokens", messages))
                        .getInt("input_tokens"));
    }

    @Test
    void messages_billingHeaderSystemBlock_droppedAsVllmDrops() throws Exception {
        int first = messagesCached("x-anthropic-billing-header: cch=1;");
        int second = messagesCached("x-anthropic-billing-header: cch=2;");

        assertThat(first).isZero();
        // the per-request header block is not part of the prompt, so the rest hits
        assertThat(second).isPositive();
    }

    @Test
    void pacing_prefillTakesUncachedTokensOverPrefillRate_decodeOneTokenAtATime() throws Exception {
        JsonObject cold = SimHttp.json(http.post("/v1/chat/completions", chat("m", "")));
        int promptTokens = cold.getJsonObject("usage").getInt("prompt_tokens");
        assertThat(pacer.pauses).contains(Duration.ofMillis(promptTokens)); // 1000 tokens/s: 1 ms per token
        pacer.pauses.clear();

        JsonObject warm = SimHttp.json(http.post("/v1/chat/completions", chat("m", "")));
        int cached = warm.getJsonObject("usage")
                .getJsonObject("prompt_tokens_details")
                .getInt("cached_tokens");
        assertThat(pacer.pauses).contains(Duration.ofMillis(promptTokens - cached));

        pacer.pauses.clear();
        http.post("/v1/chat/completions", chat("m", ",\"stream\":true"));
        // 50 tokens/s: 20 ms before each of the 8 token chunks
        assertThat(pacer.count(Duration.ofMillis(20))).isEqualTo(8);
    }

    private int messagesCached(String billingHeader) throws Exception {
        String body = "{\"max_tokens\":4,\"system\":[{\"type\":\"text\",\"text\":\"" + billingHeader
                + "\"},{\"type\":\"text\",\"text\":\"" + LONG + "\"}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        return SimHttp.json(http.post("/v1/messages", body))
                .getJsonObject("usage")
                .getInt("cache_read_input_tokens");
    }

    private int chatCached(String model, String extra) throws Exception {
        JsonObject body = SimHttp.json(http.post("/v1/chat/completions", chat(model, extra)));
        return body.getJsonObject("usage")
                .getJsonObject("prompt_tokens_details")
                .getInt("cached_tokens");
    }

    private static String chat(String model, String extra) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"system\",\"content\":\"" + LONG
                + "\"},{\"role\":\"user\",\"content\":\"hello\"}]" + extra + "}";
    }
}
