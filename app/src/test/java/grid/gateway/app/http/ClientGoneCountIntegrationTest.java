package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code grid_client_gone_total} counts the clients that leave, before any of their answer or while it streams,
 * whether or not access lines are written ({@code BooksPropertyTest} checks it against the lines of a whole mix).
 */
class ClientGoneCountIntegrationTest {
    private static final String STREAM =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"json", "off"})
    void aClientThatLeaves_isCountedByWhetherItsAnswerHadStarted(String accessLog) throws Exception {
        CountDownLatch left = new CountDownLatch(1);
        CountDownLatch engineGot = new CountDownLatch(1);
        try (ScriptedUpstream engine = new ScriptedUpstream();
                GatewayHarness gateway = new GatewayHarness(
                        dir,
                        GatewayHarness.config(
                                "  access_log: " + accessLog + "\n", GatewayHarness.oneEngine(engine.url())),
                        engine)) {
            engine.script = ScriptedUpstream.eventsUntilClosed(left);
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.post("/v1/chat/completions", STREAM);
                assertThat(client.readUntil("{\"n\":0}")).startsWith("HTTP/1.1 200");
            }
            left.countDown();
            GatewayHarness.await("the streamed request ended", () -> gateway.server.requestsInFlight() == 0);

            engine.script = e -> {
                engineGot.countDown();
                e.awaitPeerClose(20_000);
            };
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.post("/v1/chat/completions", STREAM);
                assertThat(engineGot.await(20, TimeUnit.SECONDS)).isTrue();
            }
            GatewayHarness.await("the waiting request ended", () -> gateway.server.requestsInFlight() == 0);

            Books books = new Books(gateway.metrics());
            assertThat(books.sum("grid_client_gone_total", "stage", "during_answer"))
                    .isEqualTo(1);
            assertThat(books.sum("grid_client_gone_total", "stage", "before_answer"))
                    .isEqualTo(1);
            assertThat(books.sum("grid_upstream_errors_total")).isZero();
        }
    }
}
