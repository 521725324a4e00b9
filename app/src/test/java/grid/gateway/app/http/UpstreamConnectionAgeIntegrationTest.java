package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gateway.upstream.max_connection_age_ms} on real sockets: a connection older than the limit carries its answer
 * to the end, then closes instead of carrying the next request; without the limit the next request goes out on it.
 */
class UpstreamConnectionAgeIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @TempDir
    Path dir;

    private final ScriptedUpstream engine = new ScriptedUpstream();
    private @Nullable GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        engine.close();
    }

    @Test
    void aConnectionPastItsAge_endsItsAnswer_thenCloses_theNextRequestGoesOnANewOne() throws Exception {
        start("  upstream:\n    max_connection_age_ms: 1\n");

        ScriptedUpstream.Exchange first = send();
        ScriptedUpstream.Exchange second = send();

        assertThat(second.tcp).as("the next request's connection").isNotSameAs(first.tcp);
        GatewayHarness.await(
                "the gateway closes the aged connection once its answer ended",
                () -> engine.closedWhileIdle.contains(first.tcp));
    }

    @Test
    void withoutAnAgeLimit_theNextRequestGoesOnTheSameConnection() throws Exception {
        start("");

        ScriptedUpstream.Exchange first = send();
        ScriptedUpstream.Exchange second = send();

        assertThat(second.tcp).isSameAs(first.tcp);
        assertThat(engine.closedWhileIdle).isEmpty();
    }

    /** Starts the gateway with {@code gatewayExtra} in its {@code gateway} block, in front of the engine. */
    private void start(String gatewayExtra) throws Exception {
        engine.script = e -> {
            // Each answer ends at least 2 ms after its connection was opened (the gateway opens it before the engine
            // reads the request), so a connection is past an age limit of 1 ms whatever the machine's speed.
            Thread.sleep(2);
            e.write(okAnswer());
        };
        gateway = new GatewayHarness(
                dir, GatewayHarness.config(gatewayExtra, GatewayHarness.oneEngine(engine.url())), engine);
    }

    /** One chat answered 200; the exchange it came to the engine in. */
    private ScriptedUpstream.Exchange send() throws Exception {
        assertThat(running().post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
        return engine.take();
    }

    private GatewayHarness running() {
        if (gateway == null) {
            throw new IllegalStateException("no gateway started");
        }
        return gateway;
    }

    private static String okAnswer() {
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    }
}
