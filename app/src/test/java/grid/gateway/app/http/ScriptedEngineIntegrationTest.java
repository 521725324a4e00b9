package grid.gateway.app.http;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway in front of one scripted engine, both started for each test and closed after it. The engine is plain
 * HTTP; a subclass that runs every test again over TLS overrides {@link #transport()}.
 */
abstract class ScriptedEngineIntegrationTest {
    @TempDir
    Path dir;

    ScriptedUpstream engine;
    GatewayHarness gateway;

    @BeforeEach
    void startGatewayAndEngine() throws IOException {
        EngineTransport transport = transport();
        engine = transport.engine();
        String lines = transport.upstreamLines();
        String upstream = lines.isEmpty() ? "" : "  upstream:\n" + lines;
        gateway = new GatewayHarness(
                dir, GatewayHarness.config(upstream, GatewayHarness.oneEngine(engine.url())), engine);
    }

    /** How the gateway reaches the engine: plain HTTP here. */
    EngineTransport transport() {
        return EngineTransport.plain();
    }

    @AfterEach
    void stopGatewayAndEngine() {
        gateway.close();
    }
}
