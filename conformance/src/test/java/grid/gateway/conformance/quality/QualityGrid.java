package grid.gateway.conformance.quality;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Test fixture for the routing-quality scenarios: instant simulated engines of site {@code east} on
 * loopback, and a gateway in process in front of them ({@link GatewayHarness}: a manual clock, seed 1). Scheduled scrapes run an hour
 * apart ({@code poll_interval_ms} 3600000, {@code window_secs} 3600), so the only scrapes are the one at start and
 * those a test drives ({@code gateway.server.scrapeNow()}): what the gateway knows of load is what the test decided.
 */
final class QualityGrid implements AutoCloseable {
    static final String MODEL = GatewayHarness.MODEL;

    private final Path dir;
    private final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    /** The gateway, once {@link #startGateway} ran. */
    GatewayHarness gateway;
    /** {@code max_running} of every cluster, when set. */
    private int maxRunning;

    QualityGrid(Path dir) {
        this.dir = dir;
    }

    /** Gives every cluster {@code max_running: slots} in the gateway's config (call before {@link #startGateway}). */
    void maxRunning(int slots) {
        this.maxRunning = slots;
    }

    /** Starts an instant engine named {@code name} as {@code settings} describe it. */
    EngineSimulator engine(String name, EngineSettings.Builder settings) {
        EngineSimulator engine =
                GatewayHarness.engineSettings(name, settings.instant()).start();
        engines.put(name, engine);
        return engine;
    }

    /** Starts the gateway over every engine started, with {@code load} and {@code prefixAffinity} (YAML flow maps). */
    void startGateway(String load, String prefixAffinity) {
        startGateway(load, prefixAffinity, 1);
    }

    /** Starts the gateway as {@link #startGateway(String, String)} does, its random source seeded with {@code seed}. */
    void startGateway(String load, String prefixAffinity, long seed) {
        StringBuilder yaml = new StringBuilder("""
                server: {port: 0, admin_port: 0}
                gateway: {site: east}
                sites:
                """);
        String site = GatewayHarness.site("east", engines);
        if (maxRunning > 0) {
            site = site.replace("]\n", "]\n        max_running: " + maxRunning + "\n");
        }
        yaml.append(site);
        yaml.append("plugins:\n  grid_site_route:\n    load: {poll_interval_ms: 3600000, window_secs: 3600");
        yaml.append(load.isEmpty() ? "" : ", " + load).append("}\n");
        yaml.append("    prefix_affinity: {").append(prefixAffinity).append("}\n");
        gateway = GatewayHarness.seeded(dir, yaml.toString(), seed);
        gateway.server.scrapeNow();
    }

    /** Sends a chat request whose prompt is {@code text}; returns its status. */
    int chat(String text, boolean stream) {
        String options = stream ? "\"stream\":true,\"stream_options\":{\"include_usage\":true}," : "";
        String body = "{\"model\":\"" + MODEL + "\"," + options + "\"messages\":[{\"role\":\"user\",\"content\":\""
                + text + "\"}]}";
        return gateway.post("/v1/chat/completions", body).statusCode();
    }

    /** A prompt of about {@code bytes} bytes that shares no leading block with another {@code name}. */
    static String prompt(String name, int bytes) {
        StringBuilder text = new StringBuilder(name).append(": ");
        for (int i = 0; text.length() < bytes; i++) {
            text.append(name).append(" line ").append(i).append(". ");
        }
        return text.toString();
    }

    @Override
    public void close() {
        if (gateway != null) {
            gateway.close();
        }
        engines.values().forEach(EngineSimulator::close);
    }
}
