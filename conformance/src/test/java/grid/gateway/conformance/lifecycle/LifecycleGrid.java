package grid.gateway.conformance.lifecycle;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test fixture for the lifecycle tests: instant simulated engines on loopback, a config file naming them (rewritten
 * by {@link #writeConfig}), and gateways started in process from that file through {@link GatewayHarness} (a manual
 * clock, a seeded random source; requests go through {@link #gateway}). Closes what it started.
 */
final class LifecycleGrid implements AutoCloseable {
    static final String MODEL = GatewayHarness.MODEL;
    private static final Pattern RESPONSE_ID = Pattern.compile("\"id\"\\s*:\\s*\"(resp_[^\"]+)\"");

    final Path dir;
    final Path configFile;
    final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    /** The gateway started last, if any. */
    GatewayHarness gateway;

    LifecycleGrid(Path dir) {
        this.dir = dir;
        this.configFile = dir.resolve("gateway.yaml");
    }

    /** Starts an instant simulated engine named {@code name} (its own seeded ids). */
    EngineSimulator engine(String name) {
        return engine(name, EngineSettings.builder().instant());
    }

    EngineSimulator engine(String name, EngineSettings.Builder settings) {
        EngineSimulator engine = GatewayHarness.engineSettings(name, settings).start();
        engines.put(name, engine);
        return engine;
    }

    /** Writes the config file: {@code extra} YAML, then {@code sites} (site → cluster names, in order). */
    void writeConfig(String extra, Map<String, List<String>> sites) {
        StringBuilder yaml = new StringBuilder("""
                server:
                  port: 0
                  admin_port: 0
                """);
        yaml.append(extra).append("sites:\n");
        sites.forEach((site, clusters) -> {
            yaml.append("  - name: ").append(site).append("\n    clusters:\n");
            for (String cluster : clusters) {
                yaml.append("      - name: ")
                        .append(cluster)
                        .append("\n        url: ")
                        .append(engines.get(cluster).url())
                        .append("\n        models: [")
                        .append(MODEL)
                        .append("]\n");
            }
        });
        writeText(yaml.toString());
    }

    /** Replaces the config file's content at once (write aside, then move over it). */
    void writeText(String text) {
        try {
            Path next = dir.resolve("gateway.yaml.next");
            Files.writeString(next, text);
            Files.move(next, configFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a gateway from the config file (closing the one before, if any), on a new manual clock. */
    GatewayServer startGateway(long seed) {
        closeGateway();
        gateway = GatewayHarness.fromFile(configFile, seed);
        return gateway.server;
    }

    /**
     * Writes a config of site east over engine east-a alone, {@code serverKeys} (lines indented two spaces) in its
     * server block and scheduled scrapes an hour apart, and starts a gateway from it with seed 1.
     */
    GatewayServer startOverEastA(String serverKeys) {
        writeConfig(
                serverKeys + "gateway:\n  site: east\nplugins:\n  grid_site_route:\n"
                        + "    load: {poll_interval_ms: 3600000, window_secs: 3600}\n",
                Map.of("east", List.of("east-a")));
        return startGateway(1);
    }

    /** Starts a gateway from the config file on the system clock (for tests that need the load window to move). */
    GatewayServer startGatewayOnSystemClock(long seed) {
        closeGateway();
        gateway = GatewayHarness.onSystemClock(configFile, seed);
        return gateway.server;
    }

    /** Sets each engine's reported queue depth and scrapes once, past the load window, so only these count. */
    void queues(Map<String, Integer> depths) {
        depths.forEach((name, depth) -> engines.get(name).setQueueDepth(depth));
        // A scheduled scrape may have read the engines before the change: finish it at the old time, so that the
        // window, moved past it, holds only the new depths.
        gateway.server.scrapeNow();
        gateway.clock.advance(Duration.ofSeconds(11));
        gateway.server.scrapeNow();
    }

    static String responseId(String body) {
        Matcher m = RESPONSE_ID.matcher(body);
        if (!m.find()) {
            throw new AssertionError("no response id in " + body);
        }
        return m.group(1);
    }

    /** A chat body whose prompt is {@code text} repeated {@code times}. */
    static String chat(String text, int times, String extraMembers) {
        return "{\"model\":\"" + MODEL + "\"," + extraMembers + "\"messages\":[{\"role\":\"user\",\"content\":\""
                + text.repeat(times) + "\"}]}";
    }

    private void closeGateway() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Override
    public void close() {
        closeGateway();
        engines.values().forEach(EngineSimulator::close);
    }
}
