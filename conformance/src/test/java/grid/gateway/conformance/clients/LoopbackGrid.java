package grid.gateway.conformance.clients;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The grid the real-client tests drive: site {@code east} with cluster {@code east-a} serving {@value #MODEL}, and
 * cluster {@code east-b}, draining, the only one serving {@value #DRAINED_MODEL} (so a request for it answers the
 * gateway's own 503). Engines answer instantly; the gateway runs in process ({@link GatewayHarness}), no tag key.
 */
final class LoopbackGrid implements AutoCloseable {
    static final String MODEL = GatewayHarness.MODEL;
    static final String DRAINED_MODEL = "drained-model";

    /** A response id tagged for east-a with an empty mac (no tag key): {@code resp_east.<digest>..<engine id>}. */
    static final Pattern TAGGED_RESPONSE_ID =
            Pattern.compile("resp_east\\." + ClusterDigest.of("east-a") + "\\.\\.[0-9a-f]{16}");

    /** A conversation id tagged for east-a. */
    static final Pattern TAGGED_CONVERSATION_ID =
            Pattern.compile("conv_east\\." + ClusterDigest.of("east-a") + "\\.\\.[0-9a-f]{48}");

    final EngineSimulator eastA;
    final GatewayHarness gateway;

    LoopbackGrid(Path dir) {
        eastA = GatewayHarness.engine("east-a");
        EngineSimulator eastB = null;
        GatewayHarness started = null;
        try {
            eastB = GatewayHarness.engineSettings("east-b").model(DRAINED_MODEL).start();
            started = GatewayHarness.seeded(dir, config(eastA.url(), eastB.url()), 1, eastA, eastB);
            started.server.scrapeNow();
        } finally {
            if (started == null) {
                eastA.close();
                if (eastB != null) {
                    eastB.close();
                }
            }
        }
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
        return gateway.uri("").toString();
    }

    @Override
    public void close() {
        gateway.close();
    }
}
