package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.load.PrometheusQueueParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class EngineSeriesTest {
    private static final ClusterModel MODEL = new ClusterModel("east", "east-a", 2, 1000, 10, 16_000);

    @Test
    void series_uncachedTokensOverPrefillSeconds_isTheTruePrefillRate() {
        SimCluster cluster = new SimCluster(MODEL);
        EngineSeries before = cluster.series(0);
        Turn shared = Turns.single(1, 1000, 20);
        serve(cluster, new Flight(shared, 0, 0, 0), 0);
        serve(cluster, new Flight(shared, 1, 0, 10), 10);
        serve(cluster, new Flight(Turns.single(2, 700, 5), 2, 0, 20), 20);

        EngineSeries after = cluster.series(100);

        long uncached =
                (after.promptTokens() - before.promptTokens()) - (after.prefixCacheHits() - before.prefixCacheHits());
        double seconds = after.prefillSecondsSum() - before.prefillSecondsSum();
        assertThat(uncached / seconds).isCloseTo(MODEL.prefillTokensPerSecond(), within(1e-6));
        // The second request hit 62 blocks of the first.
        assertThat(after.prefixCacheHits()).isEqualTo(62 * 16);
        assertThat(after.promptTokens()).isEqualTo(2700);
        assertThat(after.prefixCacheQueries()).isEqualTo(2700 + 3);
        assertThat(after.requestSuccess()).isEqualTo(3);
        assertThat(after.prefillCount()).isEqualTo(3);
        assertThat(after.blockSize()).isEqualTo(16);
        assertThat(after.numGpuBlocks()).isEqualTo(1000);
    }

    @Test
    void series_queueAndRunningPhases_addUpToTheFlightsTimes() {
        SimCluster cluster = new SimCluster(new ClusterModel("east", "east-a", 1, 1000, 10, 16_000));
        Flight first = new Flight(Turns.single(1, 1000, 20), 0, 0, 0);
        Flight second = new Flight(Turns.single(2, 500, 10), 1, 0, 0.5);
        cluster.admit(first, 0);
        cluster.admit(second, 0.5);

        EngineSeries busy = cluster.series(1);
        assertThat(busy.running()).isEqualTo(1);
        assertThat(busy.waiting()).isEqualTo(1);

        cluster.firstToken(first);
        cluster.finish(first, first.done);
        cluster.firstToken(second);
        cluster.finish(second, second.done);
        EngineSeries done = cluster.series(10);

        // first: slot 0 → 3.0 (1 s prefill, 2 s decode); second waits 0.5 → 3.0, then 0.5 s + 1 s.
        assertThat(done.queueSecondsSum()).isCloseTo(2.5, within(1e-9));
        assertThat(done.inferenceSecondsSum()).isCloseTo(3.0 + 1.5, within(1e-9));
        assertThat(done.prefillSecondsSum()).isCloseTo(1.5, within(1e-9));
        assertThat(done.queueCount()).isEqualTo(2);
        assertThat(done.running()).isZero();
        assertThat(done.waiting()).isZero();
    }

    /** The relation of the recorded vLLM page (testdata/vllm/metrics_after_probe.txt) holds on the simulated series. */
    @Test
    void series_cacheQueriesMinusPromptTokens_theRequests_asTheRecordedPage() throws IOException {
        String page = Files.readString(recordedPage());
        PrometheusQueueParser parser = new PrometheusQueueParser();
        double recordedQueries =
                parser.sum(page, "vllm:prefix_cache_queries_total").orElseThrow();
        double recordedPrompt = parser.sum(page, "vllm:prompt_tokens_total").orElseThrow();
        double recordedRequests = parser.sum(page, "vllm:request_success_total").orElseThrow();
        assertThat(recordedQueries - recordedPrompt).isEqualTo(recordedRequests).isPositive();

        SimCluster cluster = new SimCluster(MODEL);
        Turn shared = Turns.single(1, 1000, 20);
        serve(cluster, new Flight(shared, 0, 0, 0), 0);
        serve(cluster, new Flight(shared, 1, 0, 10), 10);
        serve(cluster, new Flight(Turns.single(2, 37, 5), 2, 0, 20), 20);
        EngineSeries after = cluster.series(100);

        assertThat(after.prefixCacheQueries() - after.promptTokens()).isEqualTo(after.requestSuccess());
    }

    /** The recorded page, found from the working directory up. */
    private static Path recordedPage() {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path candidate = at.resolve("testdata/vllm/metrics_after_probe.txt");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("testdata/vllm/metrics_after_probe.txt not found above "
                + Path.of("").toAbsolutePath());
    }

    private static void serve(SimCluster cluster, Flight flight, double now) {
        assertThat(cluster.admit(flight, now)).isTrue();
        cluster.firstToken(flight);
        cluster.finish(flight, flight.done);
    }
}
