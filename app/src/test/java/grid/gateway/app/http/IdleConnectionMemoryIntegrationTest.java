package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The memory of the pooled idle upstream connections ({@code grid_upstream_idle_connection_bytes}): 0 before any
 * request, then what the one connection kept for reuse holds (its 8 KiB reader buffer on plain TCP), counted once
 * however many requests it carried. {@link IdleConnectionMemoryOverTlsIntegrationTest} runs the same over TLS.
 */
class IdleConnectionMemoryIntegrationTest extends BehindAFreshGateway {
    /** The reader buffer each connection holds. */
    static final double READER_BUFFER = 8 * 1024;

    /** Whether {@code bytes} is what one idle connection holds over this class's transport. */
    boolean oneConnection(double bytes) {
        return bytes == READER_BUFFER;
    }

    private RawClient.Answer ask(String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(who));
            return client.read();
        }
    }

    private double idleBytes() {
        return gateway.metric("grid_upstream_idle_connection_bytes", "");
    }

    @Test
    void aConnectionKeptForReuse_itsMemoryCounted_onceHoweverManyRequestsItCarried() throws Exception {
        engine.script = e -> e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("any")));
        assertThat(idleBytes()).isZero();

        for (String who : new String[] {"B", "C", "D"}) {
            assertThat(ask(who).status()).isEqualTo(200);
            GatewayHarness.await("the connection back in the pool", () -> idleBytes() > 0);
            assertThat(idleBytes()).matches(this::oneConnection, "one idle connection's memory");
        }
        assertThat(engine.take().socket)
                .as("one connection carried them all")
                .isSameAs(engine.take().socket)
                .isSameAs(engine.take().socket);
    }
}
