package grid.gateway.conformance.scenario;

import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.conformance.engine.EngineSettings;
import grid.gateway.conformance.engine.EngineSimulator;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * A scenario's grid, running: one simulated engine per backend cluster (no simulated delays) and the gateway in
 * process on 127.0.0.1 (ports 0), with a {@link ManualClock} and a seeded {@link SplittableRandom}. The serving
 * config is written as YAML and read by the real {@link ConfigLoader}.
 */
final class GatewayUnderTest implements AutoCloseable {
    /** What this in-process gateway lets a scenario control. */
    static final Set<String> CAPABILITIES = Set.of("manual_clock", "seeded_random", "reload", "engine_faults");

    final ManualClock clock = new ManualClock();
    final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    final GatewayServer server;
    private final Scenario scenario;
    private final Path dir;
    private int configs;

    GatewayUnderTest(Scenario scenario, Path dir) {
        this.scenario = scenario;
        this.dir = dir;
        GatewayServer started = null;
        try {
            startEngines(scenario.grid());
            started = GatewayServer.start(
                    snapshot(scenario.grid(), scenario.gateway()),
                    new GatewayServer.Runtime(clock, new SplittableRandom(scenario.seed()), "127.0.0.1"));
        } finally {
            if (started == null) {
                engines.values().forEach(EngineSimulator::close);
            }
        }
        this.server = started;
        // Every cluster measured from the start, so that "unmeasured" never decides a scenario by accident.
        server.scrapeNow();
    }

    private void startEngines(List<Scenario.Site> grid) {
        for (Scenario.Site site : grid) {
            for (Scenario.Cluster cluster : site.clusters()) {
                engines.computeIfAbsent(cluster.name(), name -> {
                    EngineSettings.Builder settings =
                            EngineSettings.builder().name(name).instant().random(new SplittableRandom(name.hashCode()));
                    cluster.models().forEach(settings::model);
                    return settings.start();
                });
            }
        }
    }

    /** Applies a new grid and gateway block, starting engines for clusters not seen before. */
    void reload(List<Scenario.Site> grid, Map<String, Object> gateway) {
        startEngines(grid);
        server.apply(snapshot(grid, gateway.isEmpty() ? scenario.gateway() : gateway));
    }

    EngineSimulator engine(String cluster) {
        EngineSimulator engine = engines.get(cluster);
        if (engine == null) {
            throw new IllegalArgumentException("no cluster " + cluster + " in the grid");
        }
        return engine;
    }

    GatewaySnapshot snapshot(List<Scenario.Site> grid, Map<String, Object> gatewayExtra) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("server", Map.of("port", 0, "admin_port", 0));
        Map<String, Object> gateway = new LinkedHashMap<>();
        gateway.put("site", grid.getFirst().name());
        gatewayExtra.forEach((key, value) -> {
            if (key.equals("tag_key")) {
                gateway.put("tag_key_path", write("tag-key", value + "\n").toString());
            } else {
                gateway.put(key, value);
            }
        });
        root.put("gateway", gateway);
        List<Object> sites = new ArrayList<>();
        for (Scenario.Site site : grid) {
            List<Object> clusters = new ArrayList<>();
            for (Scenario.Cluster cluster : site.clusters()) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("name", cluster.name());
                c.put("url", engine(cluster.name()).url());
                c.put("models", cluster.models());
                c.put("draining", cluster.draining());
                if (cluster.maxQueueDepth() != null) {
                    c.put("max_queue_depth", cluster.maxQueueDepth());
                }
                clusters.add(c);
            }
            sites.add(Map.of("name", site.name(), "clusters", clusters));
        }
        root.put("sites", sites);
        if (!scenario.plugins().isEmpty()) {
            root.put("plugins", scenario.plugins());
        }
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return ConfigLoader.load(write("gateway", new Yaml(options).dump(root)));
    }

    private Path write(String prefix, String text) {
        try {
            Path file = dir.resolve(prefix + "-" + (configs++) + ".yaml");
            Files.writeString(file, text);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.close();
        engines.values().forEach(EngineSimulator::close);
    }
}
