package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** EngineSeriesParser: vLLM's series summed over engines, the cache configuration read from labels. */
class EngineSeriesParserTest {
    private static final String TWO_ENGINES = """
            # TYPE vllm:num_requests_waiting gauge
            vllm:num_requests_waiting{engine="0",model_name="m"} 3.0
            vllm:num_requests_waiting{engine="1",model_name="m"} 2.0
            vllm:num_requests_running{engine="0",model_name="m"} 8.0
            vllm:num_requests_running{engine="1",model_name="m"} 7.0
            vllm:prompt_tokens_total{engine="0",model_name="m"} 1000.0
            vllm:prompt_tokens_total{engine="1",model_name="m"} 500.0
            vllm:prefix_cache_hits_total{engine="0",model_name="m"} 400.0
            vllm:request_prefill_time_seconds_sum{engine="0",model_name="m"} 0.25
            vllm:request_prefill_time_seconds_count{engine="0",model_name="m"} 4.0
            vllm:request_inference_time_seconds_sum{engine="0",model_name="m"} 12.5
            vllm:request_inference_time_seconds_count{engine="0",model_name="m"} 5.0
            vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="0",num_cpu_blocks="1000",num_gpu_blocks="4000"} 1.0
            vllm:cache_config_info{block_size="16",engine="1",num_gpu_blocks="2000"} 1.0
            """;

    private final EngineSeriesParser parser = new EngineSeriesParser();

    @Test
    void parse_sumsEverySeriesOverEngines() {
        EngineSample sample = parser.parse(TWO_ENGINES, "vllm:num_requests_waiting", 42);

        assertThat(sample.atNanos()).isEqualTo(42);
        assertThat(sample.waiting()).hasValue(5.0);
        assertThat(sample.running()).hasValue(15.0);
        assertThat(sample.promptTokens()).hasValue(1500.0);
        assertThat(sample.cachedTokens()).hasValue(400.0);
        assertThat(sample.prefillSeconds()).hasValue(0.25);
        assertThat(sample.runningSeconds()).hasValue(12.5);
        assertThat(sample.runningRequests()).hasValue(5.0);
        // (4000 + 1000) × 16 + 2000 × 16: GPU and CPU-offload blocks of both engines.
        assertThat(sample.cacheTokens()).hasValue(112_000.0);
    }

    @Test
    void parse_missingSeriesStayEmpty() {
        EngineSample sample = parser.parse("vllm:num_requests_waiting 1\n", "vllm:num_requests_waiting", 0);

        assertThat(sample.waiting()).hasValue(1.0);
        assertThat(sample.running()).isEmpty();
        assertThat(sample.promptTokens()).isEmpty();
        assertThat(sample.prefillSeconds()).isEmpty();
        assertThat(sample.cacheTokens()).isEmpty();
    }

    @Test
    void parse_cacheConfigWithBadLabelsIsIgnored() {
        String text = """
                vllm:cache_config_info{block_size="sixteen",num_gpu_blocks="4000"} 1.0
                vllm:cache_config_info{block_size="16",num_gpu_blocks="0x10"} 1.0
                vllm:cache_config_info{block_size="16"} 1.0
                vllm:cache_config_info{block_size="16",num_gpu_blocks="10" 1.0
                """;

        assertThat(parser.parse(text, "q", 0).cacheTokens()).isEmpty();
    }

    @Test
    void parse_aSeriesRepeatedOnThePage_countsOnce() {
        String text = """
                vllm:cache_config_info{block_size="16",engine="0",num_gpu_blocks="10"} 1.0
                vllm:num_requests_running{engine="0"} 3
                vllm:cache_config_info{num_gpu_blocks="10",engine="0",block_size="16"} 1.0
                vllm:num_requests_running{engine="0"} 3
                """;

        EngineSample sample = parser.parse(text, "q", 0);

        assertThat(sample.cacheTokens()).hasValue(160.0);
        assertThat(sample.running()).hasValue(3.0);
    }

    @Test
    void parse_escapedLabelValuesDoNotConfuseTheLabelReader() {
        String text = "vllm:cache_config_info{note=\"num_gpu_blocks=\\\"9\\\"\",block_size=\"16\","
                + "num_gpu_blocks=\"10\"} 1.0\n";

        assertThat(parser.parse(text, "q", 0).cacheTokens()).hasValue(160.0);
    }

    @Test
    void parse_samplesNoCountCanBe_areIgnored_theOtherEnginesStillCount() {
        String text = """
                vllm:num_requests_waiting{engine="0"} -50
                vllm:num_requests_waiting{engine="1"} 4
                vllm:num_requests_waiting{engine="2"} 1e300
                vllm:num_requests_running -0
                vllm:prompt_tokens_total 1e16
                vllm:prefix_cache_hits_total 9007199254740992
                vllm:request_prefill_time_seconds_sum -1e-9
                vllm:cache_config_info{block_size="16",num_gpu_blocks="-4000"} 1.0
                vllm:cache_config_info{block_size="1e300",num_gpu_blocks="1e300"} 1.0
                vllm:cache_config_info{block_size="16",num_gpu_blocks="10"} 1.0
                """;

        EngineSample sample = parser.parse(text, "vllm:num_requests_waiting", 0);

        assertThat(sample.waiting()).hasValue(4.0);
        assertThat(sample.running()).hasValue(0.0);
        assertThat(sample.promptTokens()).isEmpty();
        assertThat(sample.cachedTokens()).hasValue(PrometheusQueueParser.MAX_COUNT);
        assertThat(sample.prefillSeconds()).isEmpty();
        assertThat(sample.cacheTokens()).hasValue(160.0);
    }
}
