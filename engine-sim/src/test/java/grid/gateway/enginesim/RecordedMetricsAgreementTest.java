package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.load.PrometheusQueueParser;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the numbers of vLLM's {@code /metrics} page agree with each other, read off the recorded pages
 * ({@code testdata/vllm/metrics_after_probe.txt}) and the recorded burst polls ({@code load_*.json}), and held
 * against the simulator's page after a mix of requests (one-token and longer answers, a repeated long prompt, a
 * stream): whatever the numbers, the relations that hold on the recorded page hold on the simulated one.
 */
class RecordedMetricsAgreementTest {
    private static final String LONG = "cache me ".repeat(200);

    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        Map<String, String> recorded =
                RecordedExchangeReplayTest.cacheConfig(Recordings.text("metrics_after_probe.txt"));
        engine = EngineSettings.builder()
                .model("tiny-llama")
                .slots(4)
                .blockSize(Integer.parseInt(recorded.get("block_size")))
                .cacheBlocks(Integer.parseInt(recorded.get("num_gpu_blocks")))
                .answerTokens(8)
                .instant()
                .start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    /** The relations between a page's series, in the order they are checked. */
    private static List<String> relations(String page) {
        double success = sum(page, "vllm:request_success_total");
        double prompt = sum(page, "vllm:prompt_tokens_total");
        double generated = sum(page, "vllm:generation_tokens_total");
        double decode = sum(page, "vllm:request_decode_time_seconds_sum");
        return List.of(
                // Every request looks the cache up once for its prompt and the token it is about to compute.
                "cache queries − prompt tokens = requests: "
                        + (sum(page, "vllm:prefix_cache_queries_total") - prompt == success),
                // Inter-token gaps: one for each token after a request's first, and together its decode time.
                "inter-token gaps = tokens after each first: "
                        + (sum(page, "vllm:inter_token_latency_seconds_count") == generated - success),
                "inter-token seconds = decode seconds: "
                        + close(sum(page, "vllm:inter_token_latency_seconds_sum"), decode),
                "inference = prefill + decode: "
                        + close(
                                sum(page, "vllm:request_inference_time_seconds_sum"),
                                sum(page, "vllm:request_prefill_time_seconds_sum") + decode),
                // One step prefills a prompt and yields its first token; each later token is a step of its own.
                "steps = generated tokens: " + (sum(page, "vllm:iteration_tokens_total_count") == generated),
                "step tokens = prompt + generated: "
                        + (sum(page, "vllm:iteration_tokens_total_sum") == prompt + generated),
                "computed = prompt − hits: "
                        + (sum(page, "vllm:request_prefill_kv_computed_tokens_sum")
                                == prompt - sum(page, "vllm:prefix_cache_hits_total")),
                "per-request histograms count every request: "
                        + (sum(page, "vllm:request_time_per_output_token_seconds_count") == success
                                && sum(page, "vllm:e2e_request_latency_seconds_count") == success));
    }

    @Test
    void seriesRelations_asOnTheRecordedPage() throws Exception {
        String single = "{\"prompt\":\"hello world probe\",\"max_tokens\":1}";
        String repeated = "{\"prompt\":\"" + LONG + "\",\"max_tokens\":1}";
        String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"max_tokens\":5,\"stream\":true}";
        http.post("/v1/completions", single);
        http.post("/v1/completions", repeated);
        http.post("/v1/completions", repeated);
        http.post("/v1/chat/completions", chat);
        http.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        String recorded = Recordings.text("metrics_after_probe.txt");
        String simulated = http.get("/metrics").body();

        assertThat(relations(recorded)).allMatch(relation -> relation.endsWith("true"));
        assertThat(relations(simulated)).containsExactlyElementsOf(relations(recorded));
    }

    @Test
    void timePerOutputToken_theDecodeTimeOverTheTokensAfterTheFirst() throws Exception {
        http.post("/v1/completions", "{\"prompt\":\"hello\",\"max_tokens\":5}");
        String page = http.get("/metrics").body();

        // One request of 5 tokens: 4 gaps, whose mean is its time per output token.
        assertThat(sum(page, "vllm:request_time_per_output_token_seconds_sum"))
                .isCloseTo(sum(page, "vllm:request_decode_time_seconds_sum") / 4, within(1e-12));
    }

    /**
     * {@code kv_cache_usage_perc} of the recorded bursts: short requests hold a block each, and the share is of the
     * usable blocks, which are one fewer than {@code num_gpu_blocks} (vLLM keeps one back as its null block).
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void kvCacheUsage_runningShortRequests_asTheRecordedPolls(int running) throws Exception {
        double recorded = recordedUsageWith(running);
        CountDownLatch gate = new CountDownLatch(1);
        engine.failNext(running, Fault.holdFirstByte(gate));
        List<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>>> answers =
                new java.util.ArrayList<>();
        for (int i = 0; i < running; i++) {
            answers.add(http.postAsync(
                    "/v1/chat/completions",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"burst\"}],\"max_tokens\":64}"));
        }
        try {
            assertThat(engine.awaitQueue(running, 0, SimHttp.TIMEOUT)).isTrue();
            assertThat(sum(http.get("/metrics").body(), "vllm:kv_cache_usage_perc"))
                    .isCloseTo(recorded, within(1e-15));
        } finally {
            gate.countDown();
            for (var answer : answers) {
                answer.get();
            }
        }
    }

    /** The usage a recorded burst poll showed while {@code running} requests ran. */
    private static double recordedUsageWith(int running) {
        for (String file : List.of("load_results.json", "load_burst_200.json")) {
            JsonValue json = Recordings.parse(Recordings.text(file));
            List<JsonObject> runs = json.asJsonObject().containsKey("metric_samples")
                    ? List.of(json.asJsonObject())
                    : json.asJsonObject().values().stream()
                            .map(JsonValue::asJsonObject)
                            .filter(o -> o.containsKey("metric_samples"))
                            .toList();
            for (JsonObject run : runs) {
                for (JsonValue poll : run.getJsonArray("metric_samples")) {
                    JsonObject p = poll.asJsonObject();
                    if (p.getJsonNumber("vllm:num_requests_running").intValue() == running) {
                        return p.getJsonNumber("vllm:kv_cache_usage_perc").doubleValue();
                    }
                }
            }
        }
        throw new AssertionError("no recorded poll with " + running + " running");
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    }

    private static double sum(String page, String metric) {
        return new PrometheusQueueParser().sum(page, metric).orElseThrow(() -> new AssertionError(metric + " missing"));
    }
}
