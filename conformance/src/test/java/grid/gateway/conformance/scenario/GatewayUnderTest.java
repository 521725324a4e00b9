package grid.gateway.conformance.scenario;

import grid.gateway.enginesim.ApiSurface;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * A scenario's grid, running: one simulated engine per backend cluster (no simulated delays) in this JVM, and the
 * gateway on 127.0.0.1 (ports 0) in front of them, either {@link InProcessGateway in process} or {@link JarGateway as
 * the packaged jar}. The serving config is written as YAML and read by the real config loader.
 */
abstract sealed class GatewayUnderTest implements AutoCloseable permits InProcessGateway, JarGateway {
    /** How the gateway runs. */
    enum Mode {
        IN_PROCESS("in process", InProcessGateway.CAPABILITIES),
        JAR("jar", JarGateway.CAPABILITIES);

        final String label;
        final Set<String> capabilities;

        Mode(String label, Set<String> capabilities) {
            this.label = label;
            this.capabilities = capabilities;
        }

        GatewayUnderTest start(Scenario scenario, Path dir) {
            return switch (this) {
                case IN_PROCESS -> new InProcessGateway(scenario, dir);
                case JAR -> new JarGateway(scenario, dir);
            };
        }

        @Override
        public String toString() {
            return label;
        }
    }

    final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    final Scenario scenario;
    private final Path dir;
    private int files;

    GatewayUnderTest(Scenario scenario, Path dir) {
        this.scenario = scenario;
        this.dir = dir;
    }

    /** The client port. */
    abstract int port();

    /** The admin port (metrics). */
    abstract int adminPort();

    /** After {@code cluster}'s engine was told to report {@code depth}: makes the gateway see it. */
    abstract void queueDepthSet(String cluster, int depth);

    /** Advances the gateway's clock. */
    abstract void advance(Duration by);

    /** Applies a new grid and gateway block (and plugins block, when not empty). */
    abstract void reload(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins);

    /** Offers a grid the config loader must refuse with a message containing {@code refused}. */
    abstract void refusedReload(
            List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins, String refused);

    final void startEngines(List<Scenario.Site> grid) {
        for (Scenario.Site site : grid) {
            for (Scenario.Cluster cluster : site.clusters()) {
                engines.computeIfAbsent(cluster.name(), name -> {
                    // vLLM as recorded, plus the Conversations API and DELETE of a stored response that the
                    // scenarios of stored-id pinning exercise (vLLM has neither).
                    EngineSettings.Builder settings = EngineSettings.builder()
                            .name(name)
                            .instant()
                            .random(new SplittableRandom(name.hashCode()))
                            .api(ApiSurface.VLLM.withOpenAiAdditions());
                    cluster.models().forEach(settings::model);
                    return settings.start();
                });
            }
        }
    }

    final void closeEngines() {
        engines.values().forEach(EngineSimulator::close);
    }

    EngineSimulator engine(String cluster) {
        EngineSimulator engine = engines.get(cluster);
        if (engine == null) {
            throw new IllegalArgumentException("no cluster " + cluster + " in the grid");
        }
        return engine;
    }

    /**
     * The serving config as a YAML tree: ports 0, the first site as the gateway's own, {@code tag_key} written to a
     * key file, every cluster pointing at its engine.
     */
    final Map<String, Object> config(
            List<Scenario.Site> grid, Map<String, Object> gatewayExtra, Map<String, Object> plugins) {
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
        if (!plugins.isEmpty()) {
            root.put("plugins", plugins);
        }
        return root;
    }

    static String yaml(Map<String, Object> root) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options).dump(root);
    }

    /** Writes {@code text} to a new file of the scenario's folder. */
    final Path write(String prefix, String text) {
        try {
            Path file = dir.resolve(prefix + "-" + (files++) + ".yaml");
            Files.writeString(file, text);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    final Path dir() {
        return dir;
    }

    @Override
    public abstract void close();
}
