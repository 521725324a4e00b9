package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.EngineSeriesParser;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The simulator's {@code /metrics} against the pages recorded from a real vLLM server ({@code testdata/vllm/
 * metrics_*.txt}): the same {@code vllm:*} families with the same types, help texts and label names, and the same
 * series for the gateway's parser to read. The pages' other families ({@code python_*}, {@code process_*},
 * {@code http_*}) are the API server's Python process and HTTP instrumentation, not the engine's; the gateway reads
 * none of them, and the simulator does not write them.
 */
class RecordedMetricsTest {
    private static final String QUEUE = "vllm:num_requests_waiting";

    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() throws Exception {
        Map<String, String> recorded =
                RecordedExchangeReplayTest.cacheConfig(Recordings.text("metrics_after_probe.txt"));
        engine = EngineSettings.builder()
                .model("tiny-llama")
                .blockSize(Integer.parseInt(recorded.get("block_size")))
                .cacheBlocks(Integer.parseInt(recorded.get("num_gpu_blocks")))
                .instant()
                .start();
        http = new SimHttp(engine);
        String prompt = "{\"prompt\":\"" + "cache me ".repeat(200) + "\",\"max_tokens\":4}";
        http.post("/v1/completions", prompt);
        http.post("/v1/completions", prompt);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"metrics_initial.txt", "metrics_after_probe.txt"})
    void vllmFamilies_sameTypesHelpAndLabelsAsRecorded(String page) throws Exception {
        MetricsPage recorded = new MetricsPage(Recordings.text(page), "vllm:");
        MetricsPage simulated = new MetricsPage(http.get("/metrics").body(), "vllm:");

        assertThat(simulated.types()).containsExactlyInAnyOrderEntriesOf(recorded.types());
        assertThat(simulated.helps()).containsExactlyInAnyOrderEntriesOf(recorded.helps());
        assertThat(simulated.labelNames()).containsExactlyInAnyOrderEntriesOf(recorded.labelNames());
    }

    @Test
    void beforeAnyRequest_theRecordedInitialPage_everySeriesAndValue() throws Exception {
        Map<String, String> recorded = RecordedExchangeReplayTest.cacheConfig(Recordings.text("metrics_initial.txt"));
        try (EngineSimulator fresh = EngineSettings.builder()
                .model("tiny-llama")
                .blockSize(Integer.parseInt(recorded.get("block_size")))
                .cacheBlocks(Integer.parseInt(recorded.get("num_gpu_blocks")))
                .instant()
                .start()) {
            String page = new SimHttp(fresh).get("/metrics").body();

            assertThat(samples(page)).containsExactlyEntriesOf(samples(Recordings.text("metrics_initial.txt")));
        }
    }

    /**
     * Every {@code vllm:} sample of {@code page} by name and labels, to its value; a {@code _created} time, and the
     * labels of {@code cache_config_info} (the recorded server's whole configuration), left out.
     */
    private static Map<String, String> samples(String page) {
        Map<String, String> samples = new java.util.TreeMap<>();
        for (String line : page.split("\n")) {
            if (!line.startsWith("vllm:")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            String value = line.substring(space + 1);
            if (series.startsWith("vllm:cache_config_info")) {
                series = "vllm:cache_config_info";
            }
            samples.put(series, series.contains("_created") ? "a time" : value);
        }
        return samples;
    }

    @Test
    void cacheConfigInfo_everyRecordedLabel_numCpuBlocksNone() throws Exception {
        Map<String, String> recorded =
                RecordedExchangeReplayTest.cacheConfig(Recordings.text("metrics_after_probe.txt"));
        Map<String, String> simulated =
                RecordedExchangeReplayTest.cacheConfig(http.get("/metrics").body());

        assertThat(simulated.keySet()).containsExactlyInAnyOrderElementsOf(recorded.keySet());
        assertThat(simulated)
                .containsEntry("num_cpu_blocks", "None")
                .containsEntry("block_size", recorded.get("block_size"))
                .containsEntry("num_gpu_blocks", recorded.get("num_gpu_blocks"))
                .containsEntry("enable_prefix_caching", "True")
                .doesNotContainKey("model_name");
    }

    @Test
    void gatewaysParser_readsTheSameSeriesFromBoth() throws Exception {
        EngineSample recorded = new EngineSeriesParser().parse(Recordings.text("metrics_after_probe.txt"), QUEUE, 0);
        EngineSample simulated =
                new EngineSeriesParser().parse(http.get("/metrics").body(), QUEUE, 0);

        List<OptionalDouble> theirs = series(recorded);
        List<OptionalDouble> ours = series(simulated);
        for (int i = 0; i < theirs.size(); i++) {
            assertThat(ours.get(i).isPresent())
                    .as("series %d present", i)
                    .isEqualTo(theirs.get(i).isPresent());
        }
        // The same cache on both: 8192 blocks of 128 tokens.
        assertThat(simulated.cacheTokens()).isEqualTo(recorded.cacheTokens());
    }

    @Test
    void counters_agreeWithEachOtherAsVllmsDo() throws Exception {
        for (String page : List.of(
                Recordings.text("metrics_after_probe.txt"), http.get("/metrics").body())) {
            double prompt = sum(page, "vllm:prompt_tokens_total");
            double hits = sum(page, "vllm:prefix_cache_hits_total");
            assertThat(hits).isPositive();
            assertThat(sum(page, "vllm:prompt_tokens_cached_total")).isEqualTo(hits);
            assertThat(sum(page, "vllm:prompt_tokens_by_source_total")).isEqualTo(prompt);
            assertThat(sum(page, "vllm:num_requests_waiting_by_reason")).isEqualTo(sum(page, QUEUE));
            assertThat(sum(page, "vllm:request_success_total"))
                    .isEqualTo(sum(page, "vllm:request_prefill_time_seconds_count"));
        }
    }

    private static double sum(String page, String metric) {
        return new grid.gateway.routing.load.PrometheusQueueParser()
                .sum(page, metric)
                .orElseThrow(() -> new AssertionError(metric + " missing"));
    }

    private static List<OptionalDouble> series(EngineSample sample) {
        return List.of(
                sample.waiting(),
                sample.running(),
                sample.promptTokens(),
                sample.cachedTokens(),
                sample.prefillSeconds(),
                sample.runningSeconds(),
                sample.runningRequests(),
                sample.cacheTokens());
    }
}
