package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parsers and calibration on the text a real vLLM server served ({@code testdata/vllm/}): both recorded
 * {@code /metrics} pages whole, and every {@code /metrics} poll of the recorded bursts ({@code load_*.json}, which
 * keep the three gauges of each poll) written back into the recorded page, as the server would have served it.
 */
class RecordedVllmPagesTest {
    private static final String QUEUE = "vllm:num_requests_waiting";
    private static final ClusterId CLUSTER = new ClusterId(new SiteName("east"), "east-a");
    private static final Pattern POLL = Pattern.compile("\"vllm:num_requests_waiting\":\\s*([-0-9.eE+]+),\\s*"
            + "\"vllm:num_requests_running\":\\s*([-0-9.eE+]+),\\s*"
            + "\"vllm:kv_cache_usage_perc\":\\s*([-0-9.eE+]+)");

    private final PrometheusQueueParser parser = new PrometheusQueueParser();
    private final EngineSeriesParser series = new EngineSeriesParser();

    @ParameterizedTest
    @ValueSource(strings = {"metrics_initial.txt", "metrics_after_probe.txt"})
    void queueParser_recordedPage_readsTheGaugesAndTheWaitingByReason(String page) {
        String text = recorded(page);

        assertThat(parser.sum(text, QUEUE)).hasValue(0.0);
        assertThat(parser.sum(text, "vllm:num_requests_running")).hasValue(0.0);
        // capacity + deferred: vLLM's help text says they sum to num_requests_waiting.
        assertThat(parser.sum(text, "vllm:num_requests_waiting_by_reason")).hasValue(0.0);
        // The _created gauges beside each counter are not the counter.
        assertThat(parser.sum(text, "vllm:prompt_tokens_created").orElseThrow()).isGreaterThan(1.7e9);
    }

    @Test
    void engineSeriesParser_recordedPageAfterTraffic_everySeriesExact() {
        EngineSample sample = series.parse(recorded("metrics_after_probe.txt"), QUEUE, 7);

        assertThat(sample.waiting()).hasValue(0.0);
        assertThat(sample.running()).hasValue(0.0);
        assertThat(sample.promptTokens()).hasValue(28_672.0);
        assertThat(sample.cachedTokens()).hasValue(15_232.0);
        assertThat(sample.prefillSeconds()).hasValue(0.5413467680000394);
        assertThat(sample.runningSeconds()).hasValue(0.7226949649993912);
        assertThat(sample.runningRequests()).hasValue(21.0);
        // num_gpu_blocks="8192" × block_size="128"; num_cpu_blocks="None" (the string) adds nothing.
        assertThat(sample.cacheTokens()).hasValue(1_048_576.0);
    }

    @Test
    void capacityAuto_recordedCacheConfigInfo_sizesThePrefixMemory() {
        Calibration calibration = new Calibration();

        calibration.observe(CLUSTER, series.parse(recorded("metrics_initial.txt"), QUEUE, 0));

        // 1,048,576 tokens of KV cache ÷ 64 tokens a prefix entry.
        assertThat(calibration.capacity(CLUSTER)).isEqualTo(OptionalInt.of(16_384));
        PrefixAffinitySettings auto =
                PrefixAffinitySettings.defaults().with(PrefixAffinitySettings.Calibrated.ALL, false);
        assertThat(calibration.prices(CLUSTER, auto).capacity()).isEqualTo(OptionalInt.of(16_384));
    }

    @Test
    void prefillAuto_recordedCounters_measureTheEnginesPrefillRate() {
        Calibration calibration = new Calibration();
        PrefixAffinitySettings auto =
                PrefixAffinitySettings.defaults().with(PrefixAffinitySettings.Calibrated.ALL, false);
        String initial = recorded("metrics_initial.txt");
        String after = recorded("metrics_after_probe.txt");

        // The recorded step (21 requests between the two pages), taken three times: the counters of the later
        // pages are the recorded ones times 2 and 3, the rest of the text as served.
        calibration.observe(CLUSTER, series.parse(initial, QUEUE, 0));
        for (int k = 1; k <= 3; k++) {
            calibration.observe(CLUSTER, series.parse(scaled(after, k), QUEUE, k));
        }

        ClusterPrices prices = calibration.prices(CLUSTER, auto);
        assertThat(prices.measuredPrefill()).isTrue();
        // (28,672 prompt − 15,232 cached tokens) ÷ 0.5413 s of prefill: about 24,800 tokens a second.
        assertThat(prices.prefillTokensPerSecond()).isCloseTo((28_672 - 15_232) / 0.5413467680000394, within(1e-6));
        // Both pages were scraped idle (num_requests_running 0): no slot count, so the queued-request cost stays
        // the configured one, the batch limit being a thing vLLM does not export.
        assertThat(prices.measuredQueued()).isFalse();
        assertThat(prices.queuedRequestSeconds()).isEqualTo(auto.queuedRequestSeconds());
    }

    @ParameterizedTest
    @ValueSource(strings = {"load_burst_200.json", "load_results.json"})
    void burstPolls_writtenIntoTheRecordedPage_readBackExactly(String file) {
        String polls = recorded(file);
        String page = recorded("metrics_after_probe.txt");
        List<double[]> found = new ArrayList<>();
        Matcher poll = POLL.matcher(polls);
        while (poll.find()) {
            found.add(new double[] {
                Double.parseDouble(poll.group(1)), Double.parseDouble(poll.group(2)), Double.parseDouble(poll.group(3))
            });
        }
        // Every poll of the file was found.
        assertThat(found).hasSize(polls.split("\"vllm:num_requests_waiting\"", -1).length - 1);

        double mostWaiting = 0;
        for (double[] gauges : found) {
            String served = withGauges(page, gauges);
            EngineSample sample = series.parse(served, QUEUE, 0);
            assertThat(sample.waiting()).hasValue(gauges[0]);
            assertThat(sample.running()).hasValue(gauges[1]);
            assertThat(parser.sum(served, "vllm:kv_cache_usage_perc")).hasValue(gauges[2]);
            mostWaiting = Math.max(mostWaiting, gauges[0]);
        }
        assertThat(mostWaiting).isEqualTo(largest(polls, "max_waiting_seen"));
    }

    /** The recorded page with the three gauges of one poll in place of its own values. */
    private static String withGauges(String page, double[] gauges) {
        String served = page;
        String[] names = {QUEUE, "vllm:num_requests_running", "vllm:kv_cache_usage_perc"};
        for (int i = 0; i < names.length; i++) {
            served = served.replaceFirst(
                    "(?m)^(" + Pattern.quote(names[i]) + "\\{[^}]*}) \\S+$",
                    "$1 " + Matcher.quoteReplacement(Double.toString(gauges[i])));
        }
        return served;
    }

    /** {@code page} with the counters calibration reads multiplied by {@code k}. */
    private static String scaled(String page, int k) {
        Set<String> counters = Set.of(
                "vllm:prompt_tokens_total",
                "vllm:prefix_cache_hits_total",
                "vllm:request_prefill_time_seconds_sum",
                "vllm:request_prefill_time_seconds_count",
                "vllm:request_inference_time_seconds_sum",
                "vllm:request_inference_time_seconds_count");
        StringBuilder out = new StringBuilder();
        for (String line : page.split("\n", -1)) {
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            if (brace > 0 && space > brace && counters.contains(line.substring(0, brace))) {
                double value = Double.parseDouble(line.substring(space + 1)) * k;
                line = line.substring(0, space + 1) + value;
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }

    private static double largest(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\\s*([-0-9.eE+]+)").matcher(json);
        double most = 0;
        while (m.find()) {
            most = Math.max(most, Double.parseDouble(m.group(1)));
        }
        return most;
    }

    /** A file of the repository's {@code testdata/vllm/}, found from the module's directory upwards. */
    static String recorded(String name) {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path file = at.resolve("testdata/vllm").resolve(name);
            if (Files.isRegularFile(file)) {
                try {
                    return Files.readString(file, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new AssertionError("cannot read " + file, e);
                }
            }
        }
        throw new AssertionError(
                "testdata/vllm/" + name + " not found above " + Path.of("").toAbsolutePath());
    }
}
