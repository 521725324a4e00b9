package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.EngineSeriesParser;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EngineMetricsTest {
    private static final String LABELS = "{engine=\"0\",model_name=\"served\"}";
    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"queue me\"}]}";

    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder()
                .model("served")
                .model("alias")
                .slots(2)
                .instant()
                .start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void metrics_idle_vllmGaugesWithEngineAndFirstModelLabels() throws Exception {
        HttpResponse<String> response = http.get("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
        assertThat(response.body())
                .contains("# TYPE vllm:num_requests_waiting gauge\n")
                .contains("vllm:num_requests_running" + LABELS + " 0.0\n")
                .contains("vllm:num_requests_waiting" + LABELS + " 0.0\n")
                .contains("vllm:prefix_cache_queries_total" + LABELS + " 0.0\n")
                .doesNotContain("alias");
    }

    @Test
    void metrics_forcedQueueDepth_reportedUntilCleared() throws Exception {
        engine.setQueueDepth(7);

        assertThat(http.get("/metrics").body()).contains("vllm:num_requests_waiting" + LABELS + " 7.0\n");
        assertThat(engine.queueDepth()).isEqualTo(7);

        engine.clearQueueDepth();

        assertThat(http.get("/metrics").body()).contains("vllm:num_requests_waiting" + LABELS + " 0.0\n");
    }

    @Test
    void metrics_twoMoreRequestsThanSlots_twoWaitingUntilTheGateOpens() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        engine.failNext(4, Fault.holdFirstByte(gate));
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(http.postAsync("/v1/chat/completions", CHAT));
        }

        assertThat(engine.awaitQueue(2, 2, SimHttp.TIMEOUT)).isTrue();
        String held = http.get("/metrics").body();
        assertThat(held)
                .contains("vllm:num_requests_running" + LABELS + " 2.0\n")
                .contains("vllm:num_requests_waiting" + LABELS + " 2.0\n");
        assertThat(answers).noneMatch(CompletableFuture::isDone);

        gate.countDown();

        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            assertThat(answer.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(engine.awaitQueue(0, 0, SimHttp.TIMEOUT)).isTrue();
        assertThat(http.get("/metrics").body())
                .contains("vllm:num_requests_waiting" + LABELS + " 0.0\n")
                .contains(
                        "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"served\"} 4.0\n");
    }

    @Test
    void metrics_forcedDepthWhileRequestsWait_forcedValueWins() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        engine.failNext(3, Fault.holdFirstByte(gate));
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            answers.add(http.postAsync("/v1/chat/completions", CHAT));
        }
        assertThat(engine.awaitQueue(2, 1, SimHttp.TIMEOUT)).isTrue();

        engine.setQueueDepth(0);

        assertThat(http.get("/metrics").body()).contains("vllm:num_requests_waiting" + LABELS + " 0.0\n");
        assertThat(engine.waiting()).isEqualTo(1);
        gate.countDown();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            answer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void metrics_scrapes_countedButNotRecorded() throws Exception {
        http.get("/metrics");
        http.get("/metrics");
        http.get("/v1/models");

        assertThat(engine.metricsScrapeCount()).isEqualTo(2);
        assertThat(engine.requestCount()).isEqualTo(1);
        assertThat(engine.takeRequest(SimHttp.TIMEOUT).orElseThrow().path()).isEqualTo("/v1/models");
    }

    @Test
    void metrics_prefillSeries_exactForTheSimulatedPrefillRate() throws Exception {
        EngineSimulator slow = EngineSettings.builder()
                .model("served")
                .prefillTokensPerSecond(2_500)
                .decodeTokensPerSecond(50)
                .answerTokens(5)
                .cacheBlocks(1_000)
                .instant()
                .start();
        try {
            SimHttp slowHttp = new SimHttp(slow);
            String prompt = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "abcdefgh".repeat(200) + "\"}]}";
            slowHttp.post("/v1/chat/completions", prompt);
            slowHttp.post("/v1/chat/completions", prompt);

            String text = slowHttp.get("/metrics").body();
            EngineSample sample = new EngineSeriesParser().parse(text, "vllm:num_requests_waiting", 0);

            double uncached =
                    sample.promptTokens().orElseThrow() - sample.cachedTokens().orElseThrow();
            assertThat(sample.cachedTokens().orElseThrow()).isPositive();
            assertThat(uncached / sample.prefillSeconds().orElseThrow()).isCloseTo(2_500, within(1e-6));
            // Each request holds its slot for its prefill (which yields the first token) plus 4 more tokens at 50 a
            // second.
            assertThat(sample.runningSeconds().orElseThrow())
                    .isCloseTo(sample.prefillSeconds().orElseThrow() + 2 * 0.08, within(1e-9));
            assertThat(sample.runningRequests()).hasValue(2.0);
            assertThat(sample.cacheTokens()).hasValue(16_000.0);
            assertThat(text)
                    .contains("# TYPE vllm:request_prefill_time_seconds histogram\n")
                    .contains(
                            "vllm:request_prefill_time_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"served\"} 2.0\n")
                    .contains("vllm:request_queue_time_seconds_count{engine=\"0\",model_name=\"served\"} 2.0\n")
                    .contains("num_gpu_blocks=\"1000\"");
        } finally {
            slow.close();
        }
    }

    @Test
    void resetPrefixCache_samePromptAgain_nothingCached() throws Exception {
        String prompt = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "abcdefgh".repeat(200) + "\"}]}";
        http.post("/v1/chat/completions", prompt);
        engine.resetPrefixCache();
        http.post("/v1/chat/completions", prompt);

        assertThat(http.get("/metrics").body()).contains("vllm:prefix_cache_hits_total" + LABELS + " 0.0\n");
    }
}
