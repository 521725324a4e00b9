package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's own log when nobody reads its stderr, on real sockets: a child gateway whose stderr is a pipe left
 * unread (it fills at 64 KiB and then holds every write) keeps answering requests that each log a line, drops what its
 * log queue cannot hold, and counts it.
 */
class StalledStderrTest {
    /** A call that logs never waits for stderr, so each answers well within this. */
    private static final Duration CALL_DEADLINE = Duration.ofSeconds(10);
    /** Each call logs its path: about 1.6 KB a line, 2.4 MB in all, past the pipe and the 1 MiB queue. */
    private static final String PATH = "/v1/" + "p".repeat(1_500);

    private static final int CALLS = 1_500;

    @TempDir
    Path dir;

    @Test
    void stderrNotRead_requestsThatLogAreAnswered_andTheLinesPastTheQueueCounted() throws IOException {
        Path config = Files.writeString(dir.resolve("gateway.yaml"), ChildGateway.config(""));
        try (ChildGateway child = new ChildGateway(config, 4096, false)) {
            HttpClient client = GatewayHarness.client(Optional.empty());
            // The explainer is off: each call answers 404 and logs "route explain disabled: POST <path> from …".
            URI explain =
                    URI.create("http://127.0.0.1:" + child.adminPort() + "/route/explain?method=POST&path=" + PATH);
            for (int i = 0; i < CALLS; i++) {
                HttpResponse<String> answer = GatewayHarness.send(
                        client,
                        HttpRequest.newBuilder(explain)
                                .timeout(CALL_DEADLINE)
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build());
                assertThat(answer.statusCode())
                        .as("call %d: %s", i, answer.body())
                        .isEqualTo(404);
            }
            String metrics = GatewayHarness.send(
                            client,
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + child.adminPort() + "/metrics"))
                                    .timeout(CALL_DEADLINE)
                                    .build())
                    .body();
            assertThat(GatewayHarness.metric(metrics, "grid_log_dropped_total", "scope"))
                    .as("lines past the pipe and the queue are dropped and counted")
                    .isGreaterThan(0);
        }
    }
}
