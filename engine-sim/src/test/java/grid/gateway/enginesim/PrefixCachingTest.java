package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.load.EngineSeriesParser;
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
        assertThat(engine.settings().blockSize()).isEqualTo(16);
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
        // vLLM's Messages usage never tells a cache hit: input_tokens counts every prompt token, cached or not.
        assertThat(usage.keySet()).containsExactly("input_tokens", "output_tokens");
        assertThat(usage.getInt("input_tokens"))
                .isEqualTo(SimHttp.json(http.post("/v1/messages/count_tokens", messages))
                        .getInt("input_tokens"));
    }

    @Test
    void blockSize128_cachedTokensAreWholeBlocks_thePartialLastBlockNeverCached() throws Exception {
        try (EngineSimulator cpu =
                EngineSettings.builder().model("m").blockSize(128).instant().start()) {
            SimHttp cpuHttp = new SimHttp(cpu);
            // 2,559 simulated tokens, as the recorded prompt that vLLM cached 2,432 of (19 whole blocks of 128).
            String prompt = "{\"prompt\":\"" + "x".repeat(4 * 2_559) + "\",\"max_tokens\":1}";
            cpuHttp.post("/v1/completions", prompt);
            JsonObject usage =
                    SimHttp.json(cpuHttp.post("/v1/completions", prompt)).getJsonObject("usage");

            assertThat(usage.getInt("prompt_tokens")).isEqualTo(2_559);
            assertThat(usage.getJsonObject("prompt_tokens_details").getInt("cached_tokens"))
                    .isEqualTo(2_432);
            assertThat(cpuHttp.get("/metrics").body()).contains("block_size=\"128\"");
        }
    }

    @Test
    void promptTokensDetailsOff_cachedTokensNeverReported_plainNullStreamAbsent() throws Exception {
        try (EngineSimulator plain = EngineSettings.builder()
                .model("m")
                .api(ApiSurface.VLLM.withoutPromptTokensDetails())
                .instant()
                .start()) {
            SimHttp plainHttp = new SimHttp(plain);
            plainHttp.post("/v1/chat/completions", chat("m", ""));
            JsonObject warm = SimHttp.json(plainHttp.post("/v1/chat/completions", chat("m", "")));
            List<Sse> stream = Sse.parse(plainHttp
                    .post(
                            "/v1/chat/completions",
                            chat("m", ",\"stream\":true,\"stream_options\":{\"include_usage\":true}"))
                    .body());

            assertThat(warm.getJsonObject("usage").isNull("prompt_tokens_details"))
                    .isTrue();
            assertThat(stream.get(stream.size() - 2).json().getJsonObject("usage"))
                    .doesNotContainKey("prompt_tokens_details");
            // The engine still cached the prompt; it only does not say so.
            assertThat(plainHttp.get("/metrics").body())
                    .doesNotContain("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} 0.0");
        }
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
        // 50 tokens/s: 20 ms before each of the 8 token chunks but the first, which comes with the prefill
        assertThat(pacer.count(Duration.ofMillis(20))).isEqualTo(7);
    }

    /** The tokens a Messages request found cached, read off {@code /metrics} (its usage never tells). */
    private int messagesCached(String billingHeader) throws Exception {
        String body = "{\"max_tokens\":4,\"system\":[{\"type\":\"text\",\"text\":\"" + billingHeader
                + "\"},{\"type\":\"text\",\"text\":\"" + LONG + "\"}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        double before = cacheHits();
        http.post("/v1/messages", body);
        return (int) (cacheHits() - before);
    }

    private double cacheHits() throws Exception {
        return new EngineSeriesParser()
                .parse(http.get("/metrics").body(), "vllm:num_requests_waiting", 0)
                .cachedTokens()
                .orElseThrow();
    }

    /** The cached tokens a chat answer reports; 0 when vLLM reports none (a null {@code prompt_tokens_details}). */
    private int chatCached(String model, String extra) throws Exception {
        JsonObject usage = SimHttp.json(http.post("/v1/chat/completions", chat(model, extra)))
                .getJsonObject("usage");
        return usage.isNull("prompt_tokens_details")
                ? 0
                : usage.getJsonObject("prompt_tokens_details").getInt("cached_tokens");
    }

    private static String chat(String model, String extra) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"system\",\"content\":\"" + LONG
                + "\"},{\"role\":\"user\",\"content\":\"hello\"}]" + extra + "}";
    }
}
