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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

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
 *     no answer within 2 s                    a failure as above; the lookup runs on, and the first round after
 *                                             it answered takes its answer (one lookup at a time a cluster)
 * </pre>
 *
 * <p>The cluster's scrape thread (a virtual thread, never the scheduler) waits for a lookup that runs on a thread of its
 * own. Thread-safe: each cluster has one scrape at a time, and the per-cluster state is a concurrent map.
 */
final class PodTargets {
    private static final System.Logger LOG = System.getLogger(PodTargets.class.getName());

    /** How long a round waits for a lookup: as long as a pod's scrape waits for a read. */
    static final Duration LOOKUP_DEADLINE = Duration.ofSeconds(2);

    private final PodResolver resolver;
    private final Duration deadline;
    private final MonotonicClock clock;
    private final Supplier<Duration> refresh;
    private final LoadEvents events;
    private final ConcurrentMap<ClusterId, Resolution> resolutions = new ConcurrentHashMap<>();

    /**
     * What one cluster's name resolved to, and when it was last tried; {@code pending}: a lookup that did not answer
     * within the deadline and still runs.
     */
    private record Resolution(
            URI url,
            List<URI> pods,
            long triedNanos,
            boolean failing,
            @Nullable CompletableFuture<List<InetAddress>> pending) {}

    /**
     * Pods from {@code resolver}, a lookup waited for at most {@code deadline} (then the round keeps the pods last known),
     * resolved again once {@code refresh} passed.
     */
    PodTargets(
            PodResolver resolver,
            Duration deadline,
            MonotonicClock clock,
            Supplier<Duration> refresh,
            LoadEvents events) {
        this.resolver = requireNonNull(resolver, "resolver");
        this.deadline = requireNonNull(deadline, "deadline");
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

    /** The lookup of {@code cluster}'s name that overran its deadline and still runs, if any (for tests). */
    Optional<CompletableFuture<?>> overrunLookup(ClusterId cluster) {
        Resolution last = resolutions.get(cluster);
        return last == null ? Optional.empty() : Optional.ofNullable(last.pending());
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
        List<URI> known = last == null ? List.of() : last.pods();
        CompletableFuture<List<InetAddress>> lookup;
        if (last != null && last.pending() != null) {
            if (!last.pending().isDone()) {
                return known; // the lookup that overran its deadline still runs: its failure is counted
            }
            lookup = last.pending();
        } else if (last != null
                && !known.isEmpty()
                && now - last.triedNanos() < refresh.get().toNanos()) {
            return known;
        } else {
            lookup = lookUp(url.getHost());
        }
        try {
            List<URI> pods = lookup.get(deadline.toNanos(), TimeUnit.NANOSECONDS).stream()
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
            resolutions.put(id, new Resolution(url, pods, now, false, null));
            return pods;
        } catch (TimeoutException slow) {
            // The round scrapes the pods last known; a later round takes the lookup's answer once it came.
            failed(id, last, known, "no answer within " + deadline.toMillis() + " ms");
            resolutions.put(id, new Resolution(url, known, now, true, lookup));
            return known;
        } catch (UnknownHostException | ExecutionException | RuntimeException failure) {
            Throwable cause = failure instanceof ExecutionException e && e.getCause() != null ? e.getCause() : failure;
            failed(id, last, known, String.valueOf(cause.getMessage()));
            resolutions.put(id, new Resolution(url, known, now, true, null));
            return known;
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
            return known;
        }
    }

    private void failed(ClusterId id, @Nullable Resolution last, List<URI> known, String why) {
        events.dnsFailed(id);
        if (last == null || !last.failing()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "metrics_dns of cluster " + id + " failed to resolve (" + why + "); keeping its " + known.size()
                            + " last known pods");
        }
    }

    /**
     * Looks {@code host} up on a virtual thread of its own: the JDK's lookup cannot be interrupted and waits as long as
     * the system's resolver does (its timeout × attempts × servers).
     */
    private CompletableFuture<List<InetAddress>> lookUp(String host) {
        CompletableFuture<List<InetAddress>> lookup = new CompletableFuture<>();
        Thread.ofVirtual().name("resolve " + host).start(() -> {
            try {
                lookup.complete(resolver.resolve(host));
            } catch (Throwable failure) { // an Error too: the round must not wait for an answer that never comes
                lookup.completeExceptionally(failure);
            }
        });
        return lookup;
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
