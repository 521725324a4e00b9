package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pods of one cluster: one per loopback address on one port, each with its own queue and {@code /metrics}. */
class EnginePodsTest {
    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> get(String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void start_onePodPerAddress_onOnePort_eachItsOwnMetrics() throws Exception {
        try (EnginePods pods = EnginePods.start(
                EngineSettings.builder().name("east-a").instant().build(), List.of("127.0.0.1", "127.0.0.2"))) {
            pods.pod(0).setQueueDepth(3);
            pods.pod(1).setQueueDepth(5);

            assertThat(pods.pods()).extracting(EngineSimulator::port).containsOnly(pods.port());
            assertThat(pods.metricsUrls())
                    .containsExactly(
                            "http://127.0.0.1:" + pods.port() + "/metrics",
                            "http://127.0.0.2:" + pods.port() + "/metrics");
            assertThat(get(pods.metricsUrls().get(0)).body())
                    .contains("vllm:num_requests_waiting{")
                    .contains("} 3");
            assertThat(get(pods.metricsUrls().get(1)).body()).contains("} 5");
            assertThat(pods.pod(1).name()).isEqualTo("east-a-1");
        }
    }

    @Test
    void failScrapes_metricsAnswers503UntilCleared() throws Exception {
        try (EngineSimulator engine = EngineSettings.builder().instant().start()) {
            engine.failScrapes(true);
            assertThat(get(engine.url() + "/metrics").statusCode()).isEqualTo(503);
            assertThat(get(engine.url() + "/v1/models").statusCode())
                    .as("the API still serves")
                    .isEqualTo(200);

            engine.failScrapes(false);
            assertThat(get(engine.url() + "/metrics").statusCode()).isEqualTo(200);
        }
    }
}
