package grid.gateway.app.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.MetricsSource;
import grid.gateway.routing.time.MonotonicClock;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The pods a backend cluster's scrape round reads: its listed URLs, or the addresses its {@code metrics_dns} name
 * resolves to.
 *
 * <pre>
 *   metrics_url / metrics_urls / default     the URLs as written
 *   metrics_dns http://name:port/path        http://&lt;each address&gt;:port/path, in address order
 *     resolved at the cluster's first round, again once load.dns_refresh_secs passed since the latest attempt
 *     a failed resolution (no address)        the last known pods stay (WARNING once, counted every time);
 *                                             with none known yet, the next round tries again
 * </pre>
 *
 * <p>Resolution runs on the cluster's scrape thread (a virtual thread), never on the scheduler. Thread-safe: each
 * cluster has one scrape at a time, and the per-cluster state is a concurrent map.
 */
final class PodTargets {
    private static final System.Logger LOG = System.getLogger(PodTargets.class.getName());

    private final PodResolver resolver;
    private final MonotonicClock clock;
    private final Supplier<Duration> refresh;
    private final LoadEvents events;
    private final ConcurrentMap<ClusterId, Resolution> resolutions = new ConcurrentHashMap<>();

    /** What one cluster's name resolved to, and when it was last tried. */
    private record Resolution(URI url, List<URI> pods, long triedNanos, boolean failing) {}

    PodTargets(PodResolver resolver, MonotonicClock clock, Supplier<Duration> refresh, LoadEvents events) {
        this.resolver = requireNonNull(resolver, "resolver");
        this.clock = requireNonNull(clock, "clock");
        this.refresh = requireNonNull(refresh, "refresh");
        this.events = requireNonNull(events, "events");
    }

    /** The pods of {@code cluster} for this round; empty when its name never resolved. */
    List<URI> pods(BackendCluster cluster) {
        return switch (cluster.metrics()) {
            case MetricsSource.Urls urls -> urls.urls();
            case MetricsSource.Dns dns -> resolved(cluster.id(), dns.url());
        };
    }

    /** Forgets clusters not in {@code live}. */
    void retain(Set<ClusterId> live) {
        resolutions.keySet().retainAll(live);
    }

    private List<URI> resolved(ClusterId id, URI url) {
        long now = clock.nanoTime();
        Resolution last = resolutions.get(id);
        if (last != null && !last.url().equals(url)) {
            last = null; // a reload named another host: nothing known of it
        }
        if (last != null
                && !last.pods().isEmpty()
                && now - last.triedNanos() < refresh.get().toNanos()) {
            return last.pods();
        }
        List<URI> known = last == null ? List.of() : last.pods();
        try {
            List<URI> pods = resolver.resolve(url.getHost()).stream()
                    .map(address -> pod(url, address))
                    .distinct()
                    .sorted()
                    .toList();
            if (pods.isEmpty()) {
                throw new UnknownHostException(url.getHost() + ": no address");
            }
            if (last != null && last.failing()) {
                LOG.log(System.Logger.Level.INFO, "metrics_dns of cluster " + id + " resolves again");
            }
            if (!pods.equals(known)) {
                LOG.log(
                        System.Logger.Level.INFO,
                        "metrics_dns of cluster " + id + " resolves to " + pods.size() + " pods: " + pods);
            }
            resolutions.put(id, new Resolution(url, pods, now, false));
            return pods;
        } catch (UnknownHostException | RuntimeException failure) {
            events.dnsFailed(id);
            if (last == null || !last.failing()) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "metrics_dns of cluster " + id + " failed to resolve (" + failure.getMessage()
                                + "); keeping its " + known.size() + " last known pods");
            }
            resolutions.put(id, new Resolution(url, known, now, true));
            return known;
        }
    }

    /** {@code url} with its host replaced by {@code address}, as a literal. */
    private static URI pod(URI url, InetAddress address) {
        String literal = address.getHostAddress();
        if (address instanceof Inet6Address) {
            int scope = literal.indexOf('%');
            literal = "[" + (scope < 0 ? literal : literal.substring(0, scope)) + "]";
        }
        try {
            return new URI(url.getScheme(), null, literal, url.getPort(), url.getPath(), null, null);
        } catch (URISyntaxException impossible) {
            throw new IllegalStateException("pod URL of " + url + " at " + literal, impossible);
        }
    }
}
