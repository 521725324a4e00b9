package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pinned request still passes admission (docs/stored-ids.md), on real sockets, for each way a cluster in the grid
 * admits nothing besides {@code draining} (ProxyIntegrationTest): a windowed queue at its {@code max_queue_depth}, and
 * an ejection after three connect failures in a row. Either answers 503 with {@code Retry-After: 5} and reaches no
 * engine, though the tag names that cluster.
 */
class PinnedAdmissionIntegrationTest {
    @TempDir
    Path dir;

    private final EngineSimulator engine = GatewayHarness.engine("east-a");
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        engine.close();
    }

    private static String tagOf(String cluster) {
        return "resp_east." + ClusterDigest.of(cluster) + "..abc";
    }

    @Test
    void queueAtItsMaxQueueDepth_pinnedRequest_503RetryAfter5_notForwarded() {
        gateway = new GatewayHarness(dir, GatewayHarness.config("", """
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        models: [demo-model]
                        max_queue_depth: 4
                """.formatted(engine.url())));
        engine.setQueueDepth(4);
        gateway.server.scrapeNow();

        HttpResponse<String> answer = gateway.get("/v1/responses/" + tagOf("east-a"));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
        assertThat(answer.headers().firstValue("retry-after")).contains("5");
        assertThat(answer.body()).contains("\"code\":\"unavailable\"");
        assertThat(engine.requestCount()).isZero();
        assertThat(gateway.metric("grid_route_pinned_total", "outcome=\"unavailable\""))
                .isEqualTo(1);
    }

    @Test
    void ejectedAfterThreeConnectFailures_pinnedRequest_503RetryAfter5_withoutATry() {
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneSite("http://127.0.0.1:1")));
        for (int i = 0; i < 3; i++) {
            assertThat(gateway.get("/v1/responses/" + tagOf("east-a")).statusCode())
                    .isEqualTo(503);
        }
        assertThat(gateway.metric("grid_upstream_errors_total", "kind=\"connect\""))
                .isEqualTo(3);

        HttpResponse<String> answer = gateway.get("/v1/responses/" + tagOf("east-a"));

        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("retry-after")).contains("5");
        assertThat(gateway.metric("grid_upstream_errors_total", "kind=\"connect\""))
                .as("no fourth try")
                .isEqualTo(3);
        assertThat(gateway.metric("grid_route_pinned_total", "outcome=\"unavailable\""))
                .isEqualTo(1);
    }
}
