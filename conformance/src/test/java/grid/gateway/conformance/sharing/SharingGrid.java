package grid.gateway.conformance.sharing;

import grid.gateway.app.GatewayHarness;
import grid.gateway.conformance.RedisProcess;
import grid.gateway.enginesim.EngineSimulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test fixture for prefix sharing: a real Redis, two instant simulated engines of one site (east-a, east-b), and
 * gateway replicas started in process from one config file that shares through that Redis, each a
 * {@link GatewayHarness} on its own manual clock and seeded random source.
 *
 * <p>One process has one meter registry, so the replicas' counters add up: a scenario reads a counter's change
 * around the one replica that acted. Closes what it started.
 */
final class SharingGrid implements AutoCloseable {
    static final String MODEL = GatewayHarness.MODEL;
    static final String STREAM = "grid-prefix-memory-test";

    final RedisProcess redis;
    final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    final Path configFile;
    /** The gateway replicas running, each with its own clock. */
    final List<GatewayHarness> replicas = new ArrayList<>();

    SharingGrid(Path dir) {
        this(dir, "", "", "");
    }

    /**
     * As {@link #SharingGrid(Path)}, with {@code load} lines under {@code grid_site_route}, {@code affinity} lines
     * under {@code prefix_affinity} and {@code sharing} lines in the sharing block (each line indented for its place,
     * ending in a newline).
     */
    SharingGrid(Path dir, String load, String affinity, String sharing) {
        this.redis = RedisProcess.start();
        for (String name : List.of("east-a", "east-b")) {
            engines.put(name, GatewayHarness.engine(name));
        }
        this.configFile = dir.resolve("gateway.yaml");
        StringBuilder yaml = new StringBuilder();
        yaml.append("""
                server:
                  port: 0
                  admin_port: 0
                """);
        yaml.append(GatewayHarness.routeExplain(dir)).append("""
                gateway:
                  site: east
                plugins:
                  grid_site_route:
                """);
        yaml.append(load).append("    prefix_affinity:\n").append(affinity);
        yaml.append("      sharing:\n").append(sharing);
        yaml.append("        redis_url: ").append(redis.url()).append('\n');
        yaml.append("        stream: ").append(STREAM).append('\n');
        yaml.append("        warm_start_ms: 10000\nsites:\n").append(GatewayHarness.site("east", engines));
        try {
            Files.writeString(configFile, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a replica (it returns once warm, or after warm_start_ms). */
    GatewayHarness start(long seed) {
        GatewayHarness replica = GatewayHarness.fromFile(configFile, seed);
        replicas.add(replica);
        return replica;
    }

    /** Stops {@code replica} at once (its process is gone, and its memory with it). */
    void stop(GatewayHarness replica) {
        replica.close();
        replicas.remove(replica);
    }

    /** Sets each engine's queue depth and has every replica scrape it, past its load window. */
    void queues(int eastA, int eastB) {
        engines.get("east-a").setQueueDepth(eastA);
        engines.get("east-b").setQueueDepth(eastB);
        for (GatewayHarness replica : replicas) {
            replica.server.scrapeNow();
            replica.clock.advance(Duration.ofSeconds(11));
            replica.server.scrapeNow();
        }
    }

    static HttpResponse<String> chat(GatewayHarness replica, String prompt) {
        return replica.post(
                "/v1/chat/completions",
                "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}");
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

    @Override
    public void close() {
        replicas.forEach(GatewayHarness::close);
        engines.values().forEach(EngineSimulator::close);
        redis.close();
    }
}
