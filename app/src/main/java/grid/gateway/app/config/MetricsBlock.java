package grid.gateway.app.config;

import grid.gateway.routing.grid.MetricsSource;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads where a backend cluster's load is scraped: {@code metrics_url} (one pod), {@code metrics_urls} (a list, one
 * URL a pod) or {@code metrics_dns} (an http URL whose host name resolves to every pod, as a headless Service gives).
 * At most one of the three: two would leave open which pods the queue depth sums (docs/configuration.md, "Clusters
 * of many pods").
 *
 * <p>Stateless and thread-safe.
 */
final class MetricsBlock {
    static final String KEYS = "metrics_url, metrics_urls, metrics_dns";
    static final String ONE_OF = "at most one of " + KEYS;
    static final String URLS = "a non-empty list of http or https URLs";
    static final String DNS = "an http URL whose host name resolves to the cluster's pods";

    private MetricsBlock() {}

    /** The source the block names, or empty when it names none (the default) or one that is invalid (a problem). */
    static Optional<MetricsSource> read(YamlBlock cluster) {
        List<String> named = new ArrayList<>();
        for (String key : KEYS.split(", ")) {
            if (cluster.has(key)) {
                named.add(key);
            }
        }
        if (named.size() > 1) {
            cluster.problems()
                    .addLine(cluster.path(named.get(1)) + ": also " + named.get(0) + " is set (expected: " + ONE_OF
                            + ")");
            return Optional.empty();
        }
        Optional<MetricsSource> one = cluster.string("metrics_url", HttpUrl.EXPECTED)
                .flatMap(text -> HttpUrl.parse(cluster.path("metrics_url"), text, cluster.problems()))
                .map(MetricsSource::of);
        return one.or(() -> urls(cluster)).or(() -> dns(cluster));
    }

    /** Whether some pod is scraped over https (a cluster's {@code tls} block then applies). */
    static boolean anyHttps(MetricsSource source) {
        return switch (source) {
            case MetricsSource.Urls urls -> urls.urls().stream().anyMatch(ClusterBlock::isHttps);
            case MetricsSource.Dns dns -> ClusterBlock.isHttps(dns.url());
        };
    }

    private static Optional<MetricsSource> urls(YamlBlock cluster) {
        Optional<List<?>> items = cluster.list("metrics_urls", URLS);
        if (items.isEmpty()) {
            return Optional.empty();
        }
        if (items.get().isEmpty()) {
            cluster.problems().add(cluster.path("metrics_urls"), items.get(), URLS);
            return Optional.empty();
        }
        int before = cluster.problems().size();
        List<URI> urls = new ArrayList<>();
        for (int i = 0; i < items.get().size(); i++) {
            Object item = items.get().get(i);
            String at = cluster.path("metrics_urls") + "[" + i + "]";
            if (!(item instanceof String text)) {
                cluster.problems().add(at, item, HttpUrl.EXPECTED);
                continue;
            }
            Optional<URI> url = HttpUrl.parse(at, text, cluster.problems());
            if (url.isPresent() && urls.contains(url.get())) {
                // Listed twice, a pod would count twice in the cluster's queue depth.
                cluster.problems().add(at, text, "a URL not already listed");
            } else {
                url.ifPresent(urls::add);
            }
        }
        return cluster.problems().size() > before ? Optional.empty() : Optional.of(new MetricsSource.Urls(urls));
    }

    private static Optional<MetricsSource> dns(YamlBlock cluster) {
        Optional<URI> url = cluster.string("metrics_dns", DNS)
                .flatMap(text -> HttpUrl.parse(cluster.path("metrics_dns"), text, cluster.problems()));
        if (url.isEmpty()) {
            return Optional.empty();
        }
        // Over https each pod would be reached by its address, which its certificate does not name.
        if (!"http".equalsIgnoreCase(url.get().getScheme())) {
            cluster.problems().add(cluster.path("metrics_dns"), url.get().toString(), DNS);
            return Optional.empty();
        }
        return Optional.of(new MetricsSource.Dns(url.get()));
    }
}
