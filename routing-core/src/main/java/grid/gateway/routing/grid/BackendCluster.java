package grid.gateway.routing.grid;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One engine deployment at one site, as the serving config describes it.
 *
 * <p>Thread-safe (immutable).
 *
 * @param id the cluster's site and name
 * @param url the base URL requests are forwarded to
 * @param models the models it serves
 * @param metrics where its Prometheus metrics are scraped: its pods' URLs or a name that resolves to them
 * @param maxQueueDepth the windowed worst queue depth at which it stops admitting; absent means no limit
 * @param draining whether it admits no new request
 * @param maxRunning the sequences its engines run at once (their {@code max_num_seqs}, summed over its pods), as the
 *     operator states it ({@code max_running}); absent: learned from its scrapes
 */
public record BackendCluster(
        ClusterId id,
        URI url,
        Set<String> models,
        MetricsSource metrics,
        OptionalInt maxQueueDepth,
        boolean draining,
        OptionalInt maxRunning) {

    public BackendCluster {
        requireNonNull(id, "id");
        requireNonNull(url, "url");
        models = Set.copyOf(models);
        requireNonNull(metrics, "metrics");
        requireNonNull(maxQueueDepth, "maxQueueDepth");
        requireNonNull(maxRunning, "maxRunning");
        if (maxRunning.isPresent() && maxRunning.getAsInt() < 1) {
            throw new IllegalArgumentException("maxRunning: " + maxRunning.getAsInt() + " (expected: >= 1)");
        }
    }

    /** A cluster whose batch limit is learned from its scrapes. */
    // The canonical constructor's parameters but the last.
    @SuppressWarnings("checkstyle:parameternumber")
    public BackendCluster(
            ClusterId id,
            URI url,
            Set<String> models,
            MetricsSource metrics,
            OptionalInt maxQueueDepth,
            boolean draining) {
        this(id, url, models, metrics, maxQueueDepth, draining, OptionalInt.empty());
    }

    /** This cluster with the operator's batch limit {@code max_running}. */
    public BackendCluster withMaxRunning(OptionalInt limit) {
        return new BackendCluster(id, url, models, metrics, maxQueueDepth, draining, limit);
    }

    /** A cluster of one pod scraped at {@code metricsUrl}; absent means {@code <url>/metrics}. */
    // The canonical constructor's parameters, with the single metrics URL most clusters and tests write.
    @SuppressWarnings("checkstyle:parameternumber")
    public BackendCluster(
            ClusterId id,
            URI url,
            Set<String> models,
            Optional<URI> metricsUrl,
            OptionalInt maxQueueDepth,
            boolean draining) {
        this(
                id,
                url,
                models,
                metricsUrl.map(MetricsSource::of).orElseGet(() -> MetricsSource.defaultFor(url)),
                maxQueueDepth,
                draining);
    }

    /** Whether it serves {@code model}. */
    public boolean serves(String model) {
        return models.contains(model);
    }
}
