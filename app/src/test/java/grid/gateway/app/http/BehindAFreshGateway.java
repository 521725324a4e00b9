package grid.gateway.app.http;

import grid.gateway.app.GatewayHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the tests that each want one {@link ScriptedUpstream} behind a gateway of their own, started before each
 * test and closed after it, so that every count and gauge starts at zero ({@link BehindOneGateway} shares one gateway
 * across a class). The gateway runs the harness's config for one engine ({@link GatewayHarness#oneEngine}), as a test
 * class's {@link #config} may rewrite it.
 */
abstract class BehindAFreshGateway {
    @TempDir
    Path dir;

    ScriptedUpstream engine;
    GatewayHarness gateway;

    /** The config the gateway starts with, given the harness's config for one engine. */
    String config(String oneEngine) {
        return oneEngine;
    }

    @BeforeEach
    final void startTheGateway() {
        engine = new ScriptedUpstream();
        gateway = new GatewayHarness(
                dir, config(GatewayHarness.config("", GatewayHarness.oneEngine(engine.url()))), engine);
    }

    @AfterEach
    final void closeTheGateway() {
        gateway.close();
    }
}
