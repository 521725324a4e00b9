package grid.gateway.conformance.scenario;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One conformance scenario, parsed strictly from a YAML file by {@link ScenarioLoader}.
 *
 * @param file where it was loaded from
 * @param name a short name
 * @param spec the spec section it proves, such as {@code 5}
 * @param description what it shows, in a sentence or two
 * @param requires capabilities the gateway under test must offer ({@code manual_clock}, {@code seeded_random})
 * @param seed the seed of the gateway's random source (default {@link ScenarioLoader#DEFAULT_SEED})
 * @param gateway extra keys of the serving config's {@code gateway:} block ({@code tag_key} is written to a file)
 * @param plugins the serving config's {@code plugins:} block, empty for the defaults
 * @param grid the sites, in order, each with its clusters
 * @param steps what to do, in order
 */
public record Scenario(
        Path file,
        String name,
        String spec,
        String description,
        List<String> requires,
        long seed,
        Map<String, Object> gateway,
        Map<String, Object> plugins,
        List<Site> grid,
        List<Step> steps) {

    /** A site and its backend clusters. */
    public record Site(String name, List<Cluster> clusters) {}

    /**
     * A backend cluster, served by one simulated engine.
     *
     * @param name the cluster's name
     * @param models the models it serves
     * @param draining whether it admits no new request
     * @param maxQueueDepth {@code max_queue_depth}, or null for none
     */
    public record Cluster(String name, List<String> models, boolean draining, Integer maxQueueDepth) {}
}
