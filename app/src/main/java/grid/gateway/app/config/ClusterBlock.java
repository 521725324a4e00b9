package grid.gateway.app.config;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.MetricsSource;
import grid.gateway.routing.text.NameRule;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads one {@code sites[i].clusters[j]} block into a {@link BackendCluster}, with its metrics source filled in.
 *
 * <p>Stateless and thread-safe.
 */
final class ClusterBlock {
    /** The longest cluster name, in characters ({@link NameRule#MAX_CHARS}). */
    static final int MAX_NAME_CHARS = NameRule.MAX_CHARS;

    /** What a refused cluster name is told. */
    static final String NAME = "a non-empty name of at most " + MAX_NAME_CHARS
            + " characters, without control, invisible format or unpaired surrogate characters";

    /** What a refused model name is told: the rule of cluster names ({@link NameRule#valid}). */
    static final String MODEL = "a non-empty model name of at most " + MAX_NAME_CHARS
            + " characters, without control, invisible format or unpaired surrogate characters";

    private ClusterBlock() {}

    /** The cluster's name, or empty when it is missing or invalid (a problem). */
    static Optional<String> name(YamlBlock cluster) {
        Optional<String> name = cluster.requiredString("name", NAME);
        if (name.isPresent() && !NameRule.valid(name.get())) {
            cluster.problems().add(cluster.path("name"), name.get(), NAME);
            return Optional.empty();
        }
        return name;
    }

    /**
     * Everything in the block but its name, or empty when some of it is invalid (a problem). Reads every key, so
     * that each problem is reported.
     */
    static Optional<Parts> read(YamlBlock cluster, TlsBlock.Context tlsContext) {
        int before = cluster.problems().size();
        Optional<URI> url = cluster.requiredString("url", HttpUrl.EXPECTED)
                .flatMap(text -> HttpUrl.parse(cluster.path("url"), text, cluster.problems()));
        List<String> models = models(cluster);
        Optional<MetricsSource> metricsSource = MetricsBlock.read(cluster);
        OptionalLong maxQueueDepth =
                cluster.optionalInteger("max_queue_depth", LongRange.atMost(Integer.MAX_VALUE, ""));
        boolean draining = cluster.bool("draining", false);
        OptionalLong maxRunning = cluster.optionalInteger("max_running", LongRange.atMost(Integer.MAX_VALUE, ""));
        Optional<UpstreamTls> tls = TlsBlock.upstream(cluster, tlsContext);
        if (cluster.problems().size() > before || url.isEmpty()) {
            return Optional.empty();
        }
        MetricsSource metrics = metricsSource.orElseGet(() -> MetricsSource.of(HttpUrl.metrics(url.get())));
        if (tls.isPresent() && !isHttps(url.get()) && !MetricsBlock.anyHttps(metrics)) {
            cluster.problems().add(cluster.path("tls"), "(a block)", "tls only on a cluster with an https url");
            return Optional.empty();
        }
        return Optional.of(new Parts(
                url.get(), models, metrics, new Limits(toInt(maxQueueDepth), toInt(maxRunning)), draining, tls));
    }

    private static OptionalInt toInt(OptionalLong value) {
        return value.isPresent() ? OptionalInt.of((int) value.getAsLong()) : OptionalInt.empty();
    }

    static boolean isHttps(URI uri) {
        return "https".equalsIgnoreCase(uri.getScheme());
    }

    /**
     * A cluster block's valid content, waiting for its site and name.
     *
     * @param url {@code url}, trailing slashes dropped
     * @param models {@code models}
     * @param metrics {@code metrics_url}, {@code metrics_urls} or {@code metrics_dns}, or the default
     *     {@code <url>/metrics}
     * @param limits {@code max_queue_depth} and {@code max_running}
     * @param draining {@code draining}
     * @param tls {@code tls}, absent for the default ({@code gateway.upstream.tls})
     */
    record Parts(
            URI url,
            List<String> models,
            MetricsSource metrics,
            Limits limits,
            boolean draining,
            Optional<UpstreamTls> tls) {
        Parts {
            models = List.copyOf(models);
        }

        /** The backend cluster with this content and {@code id}. */
        BackendCluster cluster(ClusterId id) {
            return new BackendCluster(
                    id, url, Set.copyOf(models), metrics, limits.maxQueueDepth(), draining, limits.maxRunning());
        }
    }

    /**
     * A cluster's optional limits.
     *
     * @param maxQueueDepth {@code max_queue_depth}, absent for no limit
     * @param maxRunning {@code max_running}: the sequences its engines run at once, absent when learned from its scrapes
     */
    record Limits(OptionalInt maxQueueDepth, OptionalInt maxRunning) {}

    private static List<String> models(YamlBlock cluster) {
        String expected = "a non-empty list of model names";
        Optional<List<?>> items = cluster.requiredList("models", expected);
        if (items.isEmpty()) {
            return List.of();
        }
        if (items.get().isEmpty()) {
            cluster.problems().add(cluster.path("models"), items.get(), expected);
        }
        // A set: a file may list many thousands of models, and each is checked against those before it.
        Set<String> models = new LinkedHashSet<>();
        for (int i = 0; i < items.get().size(); i++) {
            Object item = items.get().get(i);
            String at = cluster.path("models") + "[" + i + "]";
            if (!(item instanceof String model) || !NameRule.valid(model)) {
                // A model's name is a field of the model list, a span attribute and part of a route explanation.
                cluster.problems().add(at, item, MODEL);
            } else if (!models.add(model)) {
                cluster.problems().add(at, model, "a model not already listed");
            }
        }
        return List.copyOf(models);
    }
}
