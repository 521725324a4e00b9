package grid.gateway.conformance.lifecycle;

import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test fixture for the lifecycle tests: instant simulated engines on loopback, a config file naming them (rewritten
 * by {@link #writeConfig}), and gateways started in process from that file with a manual clock and a seeded random
 * source. Closes what it started.
 */
final class LifecycleGrid implements AutoCloseable {
    static final String MODEL = "demo-model";
    private static final Pattern RESPONSE_ID = Pattern.compile("\"id\"\\s*:\\s*\"(resp_[^\"]+)\"");

    final Path dir;
    final Path configFile;
    final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    GatewayServer gateway;
    ManualClock clock = new ManualClock();

    LifecycleGrid(Path dir) {
        this.dir = dir;
        this.configFile = dir.resolve("gateway.yaml");
    }

    /** Starts a simulated engine named {@code name} (its own seeded ids). */
    EngineSimulator engine(String name) {
        return engine(name, EngineSettings.builder().instant());
    }

    EngineSimulator engine(String name, EngineSettings.Builder settings) {
        EngineSimulator engine = settings.name(name)
                .model(MODEL)
                .random(new SplittableRandom(name.hashCode()))
                .start();
        engines.put(name, engine);
        return engine;
    }

    /** Writes the config file: {@code extra} YAML, then {@code sites} (site → cluster names, in order). */
    void writeConfig(String extra, Map<String, java.util.List<String>> sites) {
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
            Files.move(
                    next,
                    configFile,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a gateway from the config file (closing the one before, if any). */
    GatewayServer startGateway(long seed) {
        if (gateway != null) {
            gateway.close();
        }
        clock = new ManualClock();
        gateway = GatewayServer.start(configFile, new GatewayRuntime(clock, new SplittableRandom(seed), "127.0.0.1"));
        return gateway;
    }

    /** Starts a gateway from the config file on the system clock (for tests that need the load window to move). */
    GatewayServer startGatewayOnSystemClock(long seed) {
        if (gateway != null) {
            gateway.close();
        }
        gateway = GatewayServer.start(
                configFile,
                new GatewayRuntime(
                        grid.gateway.routing.time.SystemMonotonicClock.INSTANCE,
                        new SplittableRandom(seed),
                        "127.0.0.1"));
        return gateway;
    }

    /** Sets each engine's reported queue depth and scrapes once, past the load window, so only these count. */
    void queues(Map<String, Integer> depths) {
        depths.forEach((name, depth) -> engines.get(name).setQueueDepth(depth));
        // A scheduled scrape may have read the engines before the change: finish it at the old time, so that the
        // window, moved past it, holds only the new depths.
        gateway.scrapeNow();
        clock.advance(Duration.ofSeconds(11));
        gateway.scrapeNow();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + gateway.port() + path);
    }

    HttpResponse<String> post(String path, String json, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request.build());
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(20))
                .GET()
                .build());
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String metrics() {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics"))
                        .timeout(Duration.ofSeconds(10))
                        .build())
                .body();
    }

    /** The value of the sample {@code name{...labelText...}}, 0 when absent. */
    double metric(String name, String labelText) {
        for (String line : metrics().split("\n")) {
            if (line.startsWith(name + "{") && line.contains(labelText)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
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

    @Override
    public void close() {
        if (gateway != null) {
            gateway.close();
        }
        engines.values().forEach(EngineSimulator::close);
    }
}
