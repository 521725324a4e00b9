package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A client that leaves while its request, sent again on a new connection after a stale pooled one, waits for the
 * engine's answer: the retry's connection is closed (the engine stops), neither pooled nor left open, and nothing is
 * counted against the cluster (docs/failure-behaviour.md, "Client faults").
 */
class ClientGoneDuringRetryIntegrationTest extends BehindAFreshGateway {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

    @Test
    void clientLeavesDuringTheRetrysHeadWait_retryConnectionClosed_nothingCounted() throws Exception {
        AtomicInteger exchanges = new AtomicInteger();
        engine.script = e -> {
            switch (exchanges.incrementAndGet()) {
                case 1 -> e.write(OK); // pooled
                case 2 -> e.reset(); // the pooled connection went stale: the request is sent again
                default -> e.awaitPeerClose(20_000); // a long silent prefill
            }
        };
        try (RawClient first = new RawClient(gateway.server.port())) {
            first.post("/v1/chat/completions", UpstreamFaultsIntegrationTest.STREAM);
            assertThat(first.read().status()).isEqualTo(200);
        }
        engine.take();

        ScriptedUpstream.Exchange retry;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamFaultsIntegrationTest.STREAM);
            engine.take(); // the stale connection, reset
            retry = engine.take();
        }

        ClientFaultsIntegrationTest.awaitClosed(retry);
        GatewayHarness.await("the request ended", () -> gateway.server.requestsInFlight() == 0);
        GatewayHarness.await("every engine connection closed", () -> engine.open.get() == 0);
        assertThat(gateway.metric("grid_upstream_retries_total", "reason=\"stale_connection\""))
                .isEqualTo(1.0);
        for (String kind : List.of("reset", "timeout", "other", "connect")) {
            assertThat(gateway.metric("grid_upstream_errors_total", "kind=\"" + kind + "\""))
                    .as("upstream errors of kind " + kind)
                    .isZero();
        }
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
        assertThat(gateway.metric("grid_inflight_body_bytes", "")).isZero();
    }
}
