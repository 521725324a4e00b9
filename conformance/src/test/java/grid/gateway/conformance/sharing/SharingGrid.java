package grid.gateway.conformance.sharing;

import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.conformance.RedisProcess;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * Test fixture for prefix sharing: a real Redis, two instant simulated engines of one site (east-a, east-b), and
 * gateway replicas started in process from one config file that shares through that Redis, each replica on its own
 * manual clock and seeded random source.
 *
 * <p>One process has one meter registry, so the replicas' counters add up: a scenario reads a counter's change
 * around the one replica that acted. Closes what it started.
 */
final class SharingGrid implements AutoCloseable {
    static final String MODEL = "demo-model";
    static final String STREAM = "grid-prefix-memory-test";
    private static final Duration DEADLINE = Duration.ofSeconds(15);

    final RedisProcess redis;
    final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    final Path configFile;
    final List<Replica> replicas = new ArrayList<>();
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** One gateway replica and its clock. */
    record Replica(GatewayServer gateway, ManualClock clock) {}

    SharingGrid(Path dir) {
        this.redis = RedisProcess.start();
        for (String name : List.of("east-a", "east-b")) {
            engines.put(
                    name,
                    EngineSettings.builder()
                            .instant()
                            .name(name)
                            .model(MODEL)
                            .random(new SplittableRandom(name.hashCode()))
                            .start());
        }
        this.configFile = dir.resolve("gateway.yaml");
        StringBuilder yaml = new StringBuilder("""
                server:
                  port: 0
                  admin_port: 0
                gateway:
                  site: east
                plugins:
                  grid_site_route:
                    prefix_affinity:
                      sharing:
                """);
        yaml.append("        redis_url: ").append(redis.url()).append('\n');
        yaml.append("        stream: ").append(STREAM).append('\n');
        yaml.append("        warm_start_ms: 10000\nsites:\n  - name: east\n    clusters:\n");
        engines.forEach((name, engine) -> yaml.append("      - name: ")
                .append(name)
                .append("\n        url: ")
                .append(engine.url())
                .append("\n        models: [")
                .append(MODEL)
                .append("]\n"));
        try {
            Files.writeString(configFile, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a replica (it returns once warm, or after warm_start_ms). */
    Replica start(long seed) {
        ManualClock clock = new ManualClock();
        GatewayServer gateway =
                GatewayServer.start(configFile, new GatewayRuntime(clock, new SplittableRandom(seed), "127.0.0.1"));
        Replica replica = new Replica(gateway, clock);
        replicas.add(replica);
        return replica;
    }

    /** Stops {@code replica} at once (its process is gone, and its memory with it). */
    void stop(Replica replica) {
        replica.gateway().close();
        replicas.remove(replica);
    }

    /** Sets each engine's queue depth and has every replica scrape it, past its load window. */
    void queues(int eastA, int eastB) {
        engines.get("east-a").setQueueDepth(eastA);
        engines.get("east-b").setQueueDepth(eastB);
        for (Replica replica : replicas) {
            replica.gateway().scrapeNow();
            replica.clock().advance(Duration.ofSeconds(11));
            replica.gateway().scrapeNow();
        }
    }

    HttpResponse<String> chat(Replica replica, String prompt) {
        return send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + replica.gateway().port() + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + MODEL
                        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}"))
                .build());
    }

    /** Which engine got the latest request (clearing what each received). */
    String servedBy() throws InterruptedException {
        String served = null;
        for (EngineSimulator engine : engines.values()) {
            while (engine.takeRequest(Duration.ZERO).isPresent()) {
                served = engine.name();
            }
        }
        return served;
    }

    /** A long prompt: many blocks, so a match is worth its queue. */
    static String prompt(String topic) {
        return ("Conversation about " + topic + ": the same long history every turn. ").repeat(40);
    }

    /** The value of {@code name{...labelText...}} on {@code replica}'s /metrics, 0 when absent. */
    double metric(Replica replica, String name, String labelText) {
        String text = send(HttpRequest.newBuilder(URI.create(
                                "http://127.0.0.1:" + replica.gateway().adminPort() + "/metrics"))
                        .timeout(Duration.ofSeconds(10))
                        .build())
                .body();
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{") && line.contains(labelText)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    /** Waits until {@code condition} holds, failing after a deadline (the sharing threads run on their own). */
    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        Instant end = Instant.now().plus(DEADLINE);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(end)) {
                throw new AssertionError("not within " + DEADLINE + ": " + what);
            }
            Thread.sleep(20);
        }
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

    @Override
    public void close() {
        replicas.forEach(r -> r.gateway().close());
        engines.values().forEach(EngineSimulator::close);
        redis.close();
    }
}
