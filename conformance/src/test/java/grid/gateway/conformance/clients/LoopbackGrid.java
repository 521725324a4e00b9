package grid.gateway.conformance.clients;

import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * The grid the real-client tests drive: site {@code east} with cluster {@code east-a} serving {@value #MODEL}, and
 * cluster {@code east-b}, draining, the only one serving {@value #DRAINED_MODEL} (so a request for it answers the
 * gateway's own 503). Engines answer instantly; the gateway runs in process on 127.0.0.1, ports 0, no tag key.
 */
final class LoopbackGrid implements AutoCloseable {
    static final String MODEL = "demo-model";
    static final String DRAINED_MODEL = "drained-model";

    /** A response id tagged for east-a with an empty mac (no tag key): {@code resp_east.<digest>..<engine id>}. */
    static final Pattern TAGGED_RESPONSE_ID =
            Pattern.compile("resp_east\\." + ClusterDigest.of("east-a") + "\\.\\.[0-9a-f]{32}");

    /** A conversation id tagged for east-a. */
    static final Pattern TAGGED_CONVERSATION_ID =
            Pattern.compile("conv_east\\." + ClusterDigest.of("east-a") + "\\.\\.[0-9a-f]{48}");

    final EngineSimulator eastA;
    final EngineSimulator eastB;
    final GatewayServer gateway;

    LoopbackGrid(Path dir) {
        eastA = EngineSettings.builder()
                .name("east-a")
                .model(MODEL)
                .instant()
                .random(new SplittableRandom(1))
                .start();
        EngineSimulator b = null;
        GatewayServer started = null;
        try {
            b = EngineSettings.builder()
                    .name("east-b")
                    .model(DRAINED_MODEL)
                    .instant()
                    .random(new SplittableRandom(2))
                    .start();
            Path config = dir.resolve("gateway.yaml");
            Files.writeString(config, config(eastA.url(), b.url()));
            started = GatewayServer.start(
                    ConfigLoader.load(config),
                    new GatewayRuntime(new ManualClock(), new SplittableRandom(1), "127.0.0.1"));
            started.scrapeNow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (started == null) {
                eastA.close();
                if (b != null) {
                    b.close();
                }
            }
        }
        eastB = b;
        gateway = started;
    }

    private static String config(String eastAUrl, String eastBUrl) {
        return """
                server:
                  port: 0
                  admin_port: 0
                gateway:
                  site: east
                sites:
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        models: [%s]
                      - name: east-b
                        url: %s
                        models: [%s]
                        draining: true
                """.formatted(eastAUrl, MODEL, eastBUrl, DRAINED_MODEL);
    }

    /** The gateway's base URL, without {@code /v1}. */
    String baseUrl() {
        return "http://127.0.0.1:" + gateway.port();
    }

    @Override
    public void close() {
        gateway.close();
        eastA.close();
        eastB.close();
    }
}
