package grid.gateway.conformance.engine;

import static org.assertj.core.api.Assertions.assertThat;

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
                .contains("vllm:request_success_total" + LABELS + " 4.0\n");
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
}
