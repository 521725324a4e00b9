package grid.gateway.app.http;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the tests that each want one {@link ScriptedUpstream} behind a gateway of their own, started before each
 * test and closed after it, so that every count and gauge starts at zero ({@link BehindOneGateway} shares one gateway
 * across a class). The gateway runs the harness's config for one engine ({@link GatewayHarness#oneEngine}), reached as
 * {@link #transport} says; a test class may name the engine otherwise ({@link #sites}) and rewrite the config
 * ({@link #config}).
 */
abstract class BehindAFreshGateway {
    @TempDir
    Path dir;

    ScriptedUpstream engine;
    GatewayHarness gateway;

    /** How the gateway reaches the engine: plain HTTP unless a test class says otherwise. */
    EngineTransport transport() {
        return EngineTransport.plain();
    }

    /** The sites block naming the engine at {@code url}: one cluster, its queue not scraped. */
    String sites(String url) {
        return GatewayHarness.oneEngine(url);
    }

    /** The config the gateway starts with, given the harness's config for the {@link #sites}. */
    String config(String oneEngine) {
        return oneEngine;
    }

    @BeforeEach
    final void startTheGateway() throws IOException {
        EngineTransport transport = transport();
        engine = transport.engine();
        String tls = transport.upstreamLines();
        String upstream = tls.isEmpty() ? "" : "  upstream:\n" + tls;
        gateway = new GatewayHarness(dir, config(GatewayHarness.config(upstream, sites(engine.url()))), engine);
    }

    @AfterEach
    final void closeTheGateway() {
        gateway.close();
    }
}
