package grid.gateway.conformance.quality;

import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Test fixture for the routing-quality scenarios (issue 12): instant simulated engines of site {@code east} on
 * loopback, and a gateway in process in front of them with a manual clock and seed 1. Scheduled scrapes run an hour
 * apart ({@code poll_interval_ms} 3600000, {@code window_secs} 3600), so the only scrapes are the one at start and
 * those a test drives with {@link #scrape()}: what the gateway knows of load is what the test decided.
 */
final class QualityGrid implements AutoCloseable {
    static final String MODEL = "demo-model";

    private final Path dir;
    private final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    final ManualClock clock = new ManualClock();
    private GatewayServer gateway;

    QualityGrid(Path dir) {
        this.dir = dir;
    }

    /** Starts an instant engine named {@code name} as {@code settings} describe it. */
    EngineSimulator engine(String name, EngineSettings.Builder settings) {
        EngineSimulator engine = settings.name(name)
                .model(MODEL)
                .instant()
                .random(new SplittableRandom(name.hashCode()))
                .start();
        engines.put(name, engine);
        return engine;
    }

    /** Starts the gateway over every engine started, with {@code load} and {@code prefixAffinity} (YAML flow maps). */
    void startGateway(String load, String prefixAffinity) {
        StringBuilder yaml = new StringBuilder("""
                server: {port: 0, admin_port: 0}
                gateway: {site: east}
                sites:
                  - name: east
                    clusters:
                """);
        engines.forEach((name, engine) -> yaml.append("      - {name: ")
                .append(name)
                .append(", url: \"")
                .append(engine.url())
                .append("\", models: [")
                .append(MODEL)
                .append("]}\n"));
        yaml.append("plugins:\n  grid_site_route:\n    load: {poll_interval_ms: 3600000, window_secs: 3600");
        yaml.append(load.isEmpty() ? "" : ", " + load).append("}\n");
        yaml.append("    prefix_affinity: {").append(prefixAffinity).append("}\n");
        try {
            Path file = dir.resolve("gateway.yaml");
            Files.writeString(file, yaml);
            gateway = GatewayServer.start(
                    ConfigLoader.load(file), new GatewayRuntime(clock, new SplittableRandom(1), "127.0.0.1"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        gateway.scrapeNow();
    }

    /** One scrape of every cluster, finished when this returns. */
    void scrape() {
        gateway.scrapeNow();
    }

    /** Sends a chat request whose prompt is {@code text}; returns its status. */
    int chat(String text, boolean stream) {
        String options = stream ? "\"stream\":true,\"stream_options\":{\"include_usage\":true}," : "";
        String body = "{\"model\":\"" + MODEL + "\"," + options + "\"messages\":[{\"role\":\"user\",\"content\":\""
                + text + "\"}]}";
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return send(request).statusCode();
    }

    /** The value of the gateway's sample {@code name} whose labels contain {@code labelText}; NaN when absent. */
    double metric(String name, String labelText) {
        String text = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics"))
                        .timeout(Duration.ofSeconds(10))
                        .build())
                .body();
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{") && line.contains(labelText)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
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
