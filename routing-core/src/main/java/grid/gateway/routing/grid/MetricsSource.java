package grid.gateway.routing.grid;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.List;

/**
 * Where a backend cluster's load is scraped: a fixed list of pod URLs ({@code metrics_url}, {@code metrics_urls}, or
 * the default {@code <url>/metrics}), or one URL whose host name stands for every address it resolves to
 * ({@code metrics_dns}, as a headless Service gives). The cluster's queue depth is the sum over its pods.
 *
 * <p>Thread-safe (immutable).
 */
public sealed interface MetricsSource {

    /**
     * Each URL is one pod.
     *
     * @param urls one or more, no repeats
     */
    record Urls(List<URI> urls) implements MetricsSource {
        public Urls {
            urls = List.copyOf(urls);
            if (urls.isEmpty()) {
                throw new IllegalArgumentException("urls: empty (expected: at least one)");
            }
        }
    }

    /**
     * Every address {@code url}'s host resolves to is one pod, scraped at {@code url} with the host replaced by the
     * address.
     *
     * @param url an http URL with a host name
     */
    record Dns(URI url) implements MetricsSource {
        public Dns {
            requireNonNull(url, "url");
            if (url.getHost() == null) {
                throw new IllegalArgumentException("url: " + url + " (expected: a URL with a host name)");
            }
        }
    }

    /** One pod at {@code url}. */
    static MetricsSource of(URI url) {
        return new Urls(List.of(url));
    }

    /** The default for a cluster served at {@code base}: {@code <base>/metrics}, trailing slashes dropped. */
    static MetricsSource defaultFor(URI base) {
        String text = base.toString();
        while (text.endsWith("/")) {
            text = text.substring(0, text.length() - 1);
        }
        return of(URI.create(text + "/metrics"));
    }
}
