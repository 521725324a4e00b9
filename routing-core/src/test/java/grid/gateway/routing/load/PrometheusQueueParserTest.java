package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.OptionalDouble;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The text format rules in {@link PrometheusQueueParser}'s javadoc, one case each, and a real vLLM exposition. */
class PrometheusQueueParserTest {
    private static final String WAITING = "vllm:num_requests_waiting";
    private static final String LLAMA = "meta-llama/Llama-3.1-8B-Instruct";
    private static final String QWEN = "Qwen/Qwen2.5-0.5B-Instruct";

    /** The shape of a vLLM 0.10 {@code /metrics} page: two data-parallel engines serving Llama, one serving Qwen. */
    private static final String VLLM_METRICS = """
            # HELP python_gc_objects_collected_total Objects collected during gc
            # TYPE python_gc_objects_collected_total counter
            python_gc_objects_collected_total{generation="0"} 21873.0
            python_gc_objects_collected_total{generation="1"} 4113.0
            # HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
            # TYPE process_start_time_seconds gauge
            process_start_time_seconds 1.75412301262e+09
            # HELP vllm:num_requests_running Number of requests in model execution batches.
            # TYPE vllm:num_requests_running gauge
            vllm:num_requests_running{engine="0",model_name="LLAMA"} 12.0
            vllm:num_requests_running{engine="1",model_name="LLAMA"} 9.0
            vllm:num_requests_running{engine="0",model_name="QWEN"} 2.0
            # HELP vllm:num_requests_waiting Number of requests waiting to be processed.
            # TYPE vllm:num_requests_waiting gauge
            vllm:num_requests_waiting{engine="0",model_name="LLAMA"} 3.0
            vllm:num_requests_waiting{engine="1",model_name="LLAMA"} 5.0
            vllm:num_requests_waiting{engine="0",model_name="QWEN"} 1.0
            # HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
            # TYPE vllm:kv_cache_usage_perc gauge
            vllm:kv_cache_usage_perc{engine="0",model_name="LLAMA"} 0.4213
            vllm:kv_cache_usage_perc{engine="1",model_name="LLAMA"} 0.3988
            # HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
            # TYPE vllm:prefix_cache_queries_total counter
            vllm:prefix_cache_queries_total{engine="0",model_name="LLAMA"} 1.482112e+06
            # HELP vllm:request_success_total Count of successfully processed requests.
            # TYPE vllm:request_success_total counter
            vllm:request_success_total{engine="0",finished_reason="stop",model_name="LLAMA"} 5123.0
            vllm:request_success_total{engine="0",finished_reason="length",model_name="LLAMA"} 87.0
            # HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
            # TYPE vllm:time_to_first_token_seconds histogram
            vllm:time_to_first_token_seconds_sum{engine="0",model_name="LLAMA"} 311.52
            vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="LLAMA"} 0.0
            vllm:time_to_first_token_seconds_bucket{engine="0",le="0.04",model_name="LLAMA"} 1520.0
            vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="LLAMA"} 5210.0
            vllm:time_to_first_token_seconds_count{engine="0",model_name="LLAMA"} 5210.0
            # HELP vllm:request_queue_time_seconds Histogram of time spent in WAITING phase for request.
            # TYPE vllm:request_queue_time_seconds histogram
            vllm:request_queue_time_seconds_sum{engine="0",model_name="LLAMA"} 42.0
            vllm:request_queue_time_seconds_bucket{engine="0",le="+Inf",model_name="LLAMA"} 5210.0
            vllm:request_queue_time_seconds_count{engine="0",model_name="LLAMA"} 5210.0
            """.replace("LLAMA", LLAMA).replace("QWEN", QWEN);

    private final PrometheusQueueParser parser = new PrometheusQueueParser();

    @Test
    void sum_vllmMetricsSeveralEnginesAndModels_sumsEveryLabelSet() {
        assertThat(parser.sum(VLLM_METRICS, WAITING)).hasValue(9.0);
        assertThat(parser.sum(VLLM_METRICS, "vllm:num_requests_running")).hasValue(23.0);
        // A histogram's series are separate metric names; the family name alone has no sample.
        assertThat(parser.sum(VLLM_METRICS, "vllm:time_to_first_token_seconds_count"))
                .hasValue(5210.0);
        assertThat(parser.sum(VLLM_METRICS, "vllm:time_to_first_token_seconds")).isEmpty();
    }

    @Test
    void sum_vllmMetricsWithCrlfAndOpenMetricsEof_sameSum() {
        String openMetrics = VLLM_METRICS.replace("\n", "\r\n") + "# EOF\r\n";
        assertThat(parser.sum(openMetrics, WAITING)).hasValue(9.0);
    }

    @Test
    void sum_metricAbsent_empty() {
        assertThat(parser.sum(VLLM_METRICS, "vllm:num_requests_swapped")).isEmpty();
        assertThat(parser.sum("", WAITING)).isEmpty();
        assertThat(parser.sum("# HELP vllm:num_requests_waiting 3\n# TYPE vllm:num_requests_waiting gauge\n", WAITING))
                .isEmpty();
    }

    static Stream<Arguments> expositions() {
        return Stream.of(
                arguments("no labels", "m 3", 3.0),
                arguments("empty label set", "m{} 3", 3.0),
                arguments("trailing comma in labels", "m{a=\"b\",} 3", 3.0),
                arguments("blanks around labels and before brace", "m {a = \"b\" , c=\"d\" } 3", 3.0),
                arguments("no blank after brace", "m{a=\"b\"}3", 3.0),
                arguments("tabs as separators", "m\t3\t1712345678901", 3.0),
                arguments("leading blanks", "  \tm 3", 3.0),
                arguments("escaped quotes in a value", "m{a=\"say \\\"hi\\\"\"} 2\nm{a=\"x\"} 1", 3.0),
                arguments("escaped backslash ends the value", "m{a=\"C:\\\\\"} 2\nm{a=\"\\\\\\\\\"} 1", 3.0),
                arguments("escaped newline in a value", "m{a=\"line1\\nline2\"} 2", 2.0),
                arguments("brace, comma and blanks inside quotes", "m{a=\"} 99 {\",b=\"x, y=\\\"z\"} 2", 2.0),
                arguments("hash inside quotes", "m{a=\"# EOF\"} 2", 2.0),
                arguments("integer timestamp in ms", "m{a=\"b\"} 2 1712345678901", 2.0),
                arguments("negative timestamp", "m 2 -1", 2.0),
                arguments("OpenMetrics float timestamp", "m 2 1712345678.901", 2.0),
                arguments("OpenMetrics exemplar", "m 2 # {trace_id=\"abc\"} 1.0", 2.0),
                arguments("timestamp then exemplar", "m 2 17 # {trace_id=\"abc\"} 1.0", 2.0),
                arguments("exponent", "m 1e3", 1000.0),
                arguments("exponent with sign and upper case", "m 25E-1", 2.5),
                arguments("negative zero", "m -0", 0.0),
                arguments("plus sign", "m +5", 5.0),
                arguments("leading dot", "m .5", 0.5),
                arguments("trailing dot", "m 5.", 5.0),
                arguments("NaN ignored", "m{e=\"0\"} NaN\nm{e=\"1\"} 4", 4.0),
                arguments("infinities ignored", "m{e=\"0\"} +Inf\nm{e=\"1\"} -Inf\nm{e=\"2\"} Inf\nm 4", 4.0),
                arguments("overflowing value ignored", "m 1e400\nm 4", 4.0),
                arguments("sum held at the double range", "m{e=\"0\"} 1e308\nm{e=\"1\"} 1e308", Double.MAX_VALUE),
                arguments(
                        "negative sum held at the double range",
                        "m{e=\"0\"} -1e308\nm{e=\"1\"} -1e308",
                        -Double.MAX_VALUE),
                arguments("CRLF line ends", "m{e=\"0\"} 1\r\nm{e=\"1\"} 2\r\n", 3.0),
                arguments("blank lines", "\n\nm{e=\"0\"} 1\n\t\r\n\nm{e=\"1\"} 2\n\n", 3.0),
                arguments("longer names are other metrics", "m_total 5\nm 1\nmx 7\nm:x 8\nm_bucket{le=\"1\"} 9", 1.0),
                arguments("comments naming the metric", "# m 5\n  # HELP m 5\n#m 5\nm 1", 1.0),
                arguments("same label set twice counts once: the first", "m{a=\"1\"} 1\nm{a=\"1\"} 7", 1.0),
                arguments(
                        "same labels in another order: one series",
                        "m{a=\"1\",b=\"2\"} 1\nm{b=\"2\", a=\"1\",} 7",
                        1.0),
                arguments("no labels twice counts once", "m 1\nm 7", 1.0),
                arguments(
                        "a repeated series' first sample that counts",
                        "m{a=\"1\"} NaN\nm{a=\"1\"} 4\nm{a=\"1\"} 5",
                        4.0),
                arguments("values differing only in escapes are other series", "m{a=\"x\\\\\"} 1\nm{a=\"x\"} 2", 3.0),
                arguments("samples after # EOF ignored", "m 1\n# EOF\nm 2", 1.0),
                arguments("# EOF with blanks around it", "m 1\n  # EOF \r\nm 2", 1.0),
                arguments("not quite # EOF", "m{e=\"0\"} 1\n# EOFX\n#  EOF\nm{e=\"1\"} 2", 3.0),
                arguments("unclosed quote loses only its line", "m{a=\"oops} 5\nm 2", 2.0),
                arguments("backslash at the end of a line", "m{a=\"oops\\\nm 2", 2.0),
                arguments("number of exactly the longest length", "m " + "0".repeat(63) + "1", 1.0),
                arguments("number one past the longest length", "m " + "0".repeat(64) + "1\nm 2", 2.0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("expositions")
    void sum_expositionCase_expectedTotal(String name, String exposition, double expected) {
        assertThat(parser.sum(exposition, "m")).hasValue(expected);
    }

    @Test
    void sum_negativeZeroAlone_positiveZero() {
        // The sum starts at +0.0, so a lone -0 sample reads as an empty queue, not as a distinct -0.0.
        OptionalDouble sum = parser.sum("m -0", "m");
        assertThat(Double.doubleToRawLongBits(sum.orElseThrow())).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "m{a=\"b\" 2",
                "m{a=b} 2",
                "m{a=\"b\"} 2 3 4",
                "m{=\"b\"} 2",
                "m{,} 2",
                "m{a=\"b\"c=\"d\"} 2",
                "m{1a=\"b\"} 2",
                "m{a:b=\"c\"} 2",
                "m{\"a\"=\"b\"} 2",
                "{\"m\"} 2",
                "{__name__=\"m\"} 2",
                "m 0x10",
                "m 1.0d",
                "m 1_000",
                "m 5x",
                "m 1,5",
                "m e3",
                "m 1e",
                "m .",
                "m -",
                "m Infinity",
                "m nan",
                "m",
                "m ",
                "m{",
                "m-3",
                "m 3#comment",
                "m 2 NaN",
                "m 2 17x",
                "m{a=\"b\"}}",
                "\u00a0m 2",
            })
    void sum_onlyUnparseableLines_empty(String line) {
        assertThat(parser.sum(line, "m")).isEmpty();
        // Each line is skipped on its own: a good sample after it still counts.
        assertThat(parser.sum(line + "\nm 7", "m")).hasValue(7.0);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "1m", "m{}", "m x", "m-x", "m\n", "é"})
    void sum_invalidMetricName_emptyWithoutReading(String metricName) {
        assertThat(parser.sum(metricName + " 3\nm 3", metricName)).isEmpty();
    }

    @Test
    void sum_metricNameWithColonsAndUnderscores_matchedExactly() {
        String text = "vllm:num_requests_waiting_total 50\n"
                + "vllm:num_requests_waiting:x 60\n"
                + "vllm:num_requests_waiting{engine=\"0\"} 4\n"
                + "vllm_num_requests_waiting 70\n"
                + "vllm:num_requests_waitin 80\n";
        assertThat(parser.sum(text, WAITING)).hasValue(4.0);
        assertThat(parser.sum(text, "vllm:num_requests_waiting_total")).hasValue(50.0);
    }
}
