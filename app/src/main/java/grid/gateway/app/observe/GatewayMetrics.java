package grid.gateway.app.observe;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.forward.LeftoverFound;
import grid.gateway.app.forward.RetryReason;
import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.app.load.LoadEvents;
import grid.gateway.app.load.PodCensus;
import grid.gateway.routing.PinnedOutcome;
import grid.gateway.routing.RoutingListener;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.select.AffinityOutcome;
import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's meters (docs/design.md §10), fed by the routing core's events and by the proxy; the list of meters is
 * {@link GatewayMeter}.
 *
 * <ul>
 *   <li>Every series labelled by an enum (affinity and pinned outcomes, no-keys reasons, reload results) is
 *       registered at zero on construction, so each shows before its first event.
 *   <li>Per-cluster meters exist for exactly the clusters of the grid in force: {@link #syncClusters()} registers
 *       them for clusters that joined and removes every series of clusters that left. Construction and
 *       {@link #reloadApplied()} sync, and so does an event naming a cluster of the grid in force that has no meters
 *       yet; an event naming a cluster that is not in the grid (a request still in flight when a reload removed its
 *       cluster) counts nothing.
 *   <li>Gauges are read at scrape time from {@link ClusterState}: the windowed worst queue depth (NaN while
 *       unmeasured), admitted (1 or 0), prefix-index entries.
 * </ul>
 *
 * <p>Helidon's meter registries all write to Micrometer's global registry, so one instance per process is expected
 * at a time; {@link #close()} removes every meter this instance registered (tests, shutdown).
 *
 * <p>Thread-safe: counters and the per-cluster map are concurrent; syncs are serialised by a lock that is never
 * held across I/O. Event methods never block and never throw for a valid argument.
 */
public final class GatewayMetrics implements RoutingListener, ProxyEvents, LoadEvents, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(GatewayMetrics.class.getName());

    private final MeterSet meters;
    private final ClusterState state;
    private final Map<AffinityOutcome, Counter> affinity = new EnumMap<>(AffinityOutcome.class);
    private final Map<PinnedOutcome, Counter> pinned = new EnumMap<>(PinnedOutcome.class);
    private final Map<NoKeysReason, Counter> noKeys = new EnumMap<>(NoKeysReason.class);
    private final Map<InboundRefusal, Counter> refused = new EnumMap<>(InboundRefusal.class);
    private final Map<ReloadResult, Counter> reloads = new EnumMap<>(ReloadResult.class);
    private final ConcurrentMap<ClusterId, ClusterMeters> clusters = new ConcurrentHashMap<>();
    private final ReentrantLock syncLock = new ReentrantLock();
    private final SharingMeters sharing;
    private final EdgeMeters edge;
    private boolean closed;

    /**
     * Registers the gateway's meters in {@code registry} (the one the admin {@code /metrics} exposes), with
     * per-cluster meters for the clusters of {@code state}'s grid.
     */
    public GatewayMetrics(MeterRegistry registry, ClusterState state) {
        this.meters = new MeterSet(registry);
        this.state = requireNonNull(state, "state");
        for (AffinityOutcome outcome : AffinityOutcome.values()) {
            affinity.put(outcome, meters.counter(GatewayMeter.PREFIX_AFFINITY, outcome.label()));
        }
        for (PinnedOutcome outcome : PinnedOutcome.values()) {
            pinned.put(outcome, meters.counter(GatewayMeter.PINNED, outcome.label()));
        }
        for (NoKeysReason reason : NoKeysReason.values()) {
            if (reason.counted()) {
                noKeys.put(reason, meters.counter(GatewayMeter.KEYER_NO_KEYS, reason.label()));
            }
        }
        for (InboundRefusal reason : InboundRefusal.values()) {
            refused.put(reason, meters.counter(GatewayMeter.REQUESTS_REFUSED, reason.label()));
        }
        for (ReloadResult result : ReloadResult.values()) {
            reloads.put(result, meters.counter(GatewayMeter.CONFIG_RELOADS, result.label()));
        }
        sharing = new SharingMeters(meters);
        edge = new EdgeMeters(meters);
        meters.functionalCounter(GatewayMeter.LOG_DROPPED, QueuedLogHandler::droppedOnRoot);
        syncClusters();
    }

    /** The counter of {@code key}: the constructor registers one for every enum value, so none is missing. */
    static <K> Counter registered(Map<K, Counter> counters, K key) {
        return requireNonNull(counters.get(key), "no counter registered for " + key);
    }

    /** The meters of prefix-memory sharing. */
    public SharingMeters sharing() {
        return sharing;
    }

    /** The meters of the listeners, the open files and the route explainer. */
    public EdgeMeters edge() {
        return edge;
    }

    @Override
    public void affinityDecided(AffinityOutcome outcome, ClusterId cluster, int run) {
        registered(affinity, requireNonNull(outcome, "outcome")).increment();
    }

    @Override
    public void pinned(PinnedOutcome outcome) {
        registered(pinned, requireNonNull(outcome, "outcome")).increment();
    }

    /**
     * {@code cluster} answered with {@code status}; its response headers arrived {@code toHeaders} after the request
     * was sent. Counts {@code grid_upstream_requests_total} and records {@code grid_upstream_latency_seconds}.
     */
    @Override
    public void upstreamAnswered(ClusterId cluster, int status, Duration toHeaders) {
        requireNonNull(toHeaders, "toHeaders");
        ClusterMeters found = meters(cluster);
        if (found != null) {
            found.answered(status, toHeaders);
        }
    }

    /** A forwarding attempt to {@code cluster} failed: counts {@code grid_upstream_errors_total{kind}}. */
    @Override
    public void upstreamFailed(ClusterId cluster, UpstreamFailure failure) {
        requireNonNull(failure, "failure");
        ClusterMeters found = meters(cluster);
        if (found != null) {
            found.failed(failure);
        }
    }

    /** A request was sent to {@code cluster} a second time: counts {@code grid_upstream_retries_total{reason}}. */
    @Override
    public void sendTimedOut() {
        edge.sendTimedOut("client");
    }

    @Override
    public void upstreamRetried(ClusterId cluster, RetryReason reason) {
        requireNonNull(reason, "reason");
        ClusterMeters found = meters(cluster);
        if (found != null) {
            found.retried(reason);
        }
    }

    /**
     * A connection to {@code cluster} was closed for bytes beyond its answers: counts
     * {@code grid_upstream_leftovers_total{found}}.
     */
    @Override
    public void upstreamLeftover(ClusterId cluster, LeftoverFound found) {
        requireNonNull(found, "found");
        ClusterMeters counted = meters(cluster);
        if (counted != null) {
            counted.leftover(found);
        }
    }

    /**
     * What affinity saved on one answer of {@code cluster}. Both counters cover the same answers, those whose usage
     * reported cached tokens, so that their ratio compares like with like: when {@code reportedTokens} is empty
     * (the engine said nothing) neither counts.
     *
     * @param outcome how affinity decided ({@code RouteDecision.outcome()}); empty is labelled {@code none}
     * @param predictedTokens the run times 64 ({@code LoadGate.TOKENS_PER_BLOCK}); a negative value counts as 0
     * @param reportedTokens what the engine reported, from {@link CachedTokens}
     */
    @Override
    public void cachedTokens(
            ClusterId cluster, Optional<AffinityOutcome> outcome, long predictedTokens, OptionalLong reportedTokens) {
        requireNonNull(outcome, "outcome");
        requireNonNull(reportedTokens, "reportedTokens");
        if (reportedTokens.isEmpty() || reportedTokens.getAsLong() < 0) {
            return;
        }
        ClusterMeters found = meters(cluster);
        if (found != null) {
            found.cachedTokens(outcome.orElse(null), Math.max(0, predictedTokens), reportedTokens.getAsLong());
        }
    }

    /**
     * A scrape of {@code cluster} lacked {@code series}, which an {@code auto} estimate in force needs: logged once (a
     * warning naming what stays configured) and shown by {@code grid_cluster_calibration_missing}.
     */
    @Override
    public void calibrationSeriesMissing(ClusterId cluster, String series) {
        requireNonNull(series, "series");
        LOG.log(
                System.Logger.Level.WARNING,
                "engine series " + series + " missing from the metrics of cluster " + cluster
                        + ": the auto estimate that needs it keeps the configured value until it is exported");
        ClusterMeters found = meters(cluster);
        if (found != null) {
            found.seriesMissing(series);
        }
    }

    /** Sets {@code grid_cluster_pods} and {@code grid_cluster_partly_measured} of {@code cluster}. */
    @Override
    public void podsScraped(ClusterId cluster, PodCensus census) {
        requireNonNull(census, "census");
        ClusterMeters found = meters(cluster);
        if (found != null) {
            found.census(census);
        }
    }

    /** Counts {@code grid_cluster_dns_failures_total} of {@code cluster}. */
    @Override
    public void dnsFailed(ClusterId cluster) {
        ClusterMeters found = meters(cluster);
        if (found != null) {
            found.dnsFailed();
        }
    }

    /** A client request was refused or cut before it was forwarded. */
    @Override
    public void refused(InboundRefusal reason) {
        registered(refused, requireNonNull(reason, "reason")).increment();
    }

    /** Registers {@code grid_requests_in_flight}, read from {@code count} at each scrape. */
    public void requestsInFlight(IntSupplier count) {
        requireNonNull(count, "count");
        gauge(GatewayMeter.REQUESTS_IN_FLIGHT, () -> (double) count.getAsInt());
    }

    /** Registers {@code grid_inflight_body_bytes}, read from {@code bytes} at each scrape. */
    public void inflightBodyBytes(LongSupplier bytes) {
        requireNonNull(bytes, "bytes");
        gauge(GatewayMeter.INFLIGHT_BODY_BYTES, () -> (double) bytes.getAsLong());
    }

    /** Registers {@code grid_inflight_answer_bytes}, read from {@code bytes} at each scrape. */
    public void inflightAnswerBytes(LongSupplier bytes) {
        requireNonNull(bytes, "bytes");
        gauge(GatewayMeter.INFLIGHT_ANSWER_BYTES, () -> (double) bytes.getAsLong());
    }

    /** Registers {@code grid_inflight_scrape_bytes}, read from {@code bytes} at each scrape. */
    @Override
    public void scrapePageBytes(LongSupplier bytes) {
        requireNonNull(bytes, "bytes");
        gauge(GatewayMeter.INFLIGHT_SCRAPE_BYTES, () -> (double) bytes.getAsLong());
    }

    /** Registers {@code grid_upstream_idle_connection_bytes}, read from {@code bytes} at each scrape. */
    public void upstreamIdleConnectionBytes(LongSupplier bytes) {
        requireNonNull(bytes, "bytes");
        gauge(GatewayMeter.UPSTREAM_IDLE_CONNECTION_BYTES, () -> (double) bytes.getAsLong());
    }

    /** Registers {@code grid_access_log_dropped_total}, read from {@code dropped} at each scrape. */
    public void accessLogDropped(LongSupplier dropped) {
        functionalCounter(GatewayMeter.ACCESS_LOG_DROPPED, dropped);
    }

    /** Registers {@code grid_trace_spans_dropped_total}, read from {@code dropped} at each scrape. */
    public void spansDropped(LongSupplier dropped) {
        functionalCounter(GatewayMeter.TRACE_SPANS_DROPPED, dropped);
    }

    private void functionalCounter(GatewayMeter meter, LongSupplier count) {
        requireNonNull(count, "count");
        syncLock.lock();
        try {
            if (!closed) {
                meters.functionalCounter(meter, count);
            }
        } finally {
            syncLock.unlock();
        }
    }

    private void gauge(GatewayMeter meter, Supplier<Double> value) {
        syncLock.lock();
        try {
            if (!closed) {
                meters.gauge(meter, value);
            }
        } finally {
            syncLock.unlock();
        }
    }

    /** The keyer found no keys in a request body (a body not keyed by choice, one_candidate, is not counted). */
    @Override
    public void noKeys(NoKeysReason reason) {
        if (requireNonNull(reason, "reason").counted()) {
            registered(noKeys, reason).increment();
        }
    }

    /**
     * A changed config was applied: counts it and {@linkplain #syncClusters() syncs} the per-cluster meters. Call it
     * once the new snapshot is in force, so that {@link ClusterState#grid()} returns its grid.
     */
    public void reloadApplied() {
        registered(reloads, ReloadResult.APPLIED).increment();
        syncClusters();
    }

    /** A changed config was refused; the old one stays in force. */
    public void reloadRefused() {
        registered(reloads, ReloadResult.REFUSED).increment();
    }

    /**
     * Makes the per-cluster meters match the grid in force: registers them for clusters that joined, removes every
     * series (gauges, timer, counters) of clusters that left.
     */
    public void syncClusters() {
        syncLock.lock();
        try {
            if (closed) {
                return;
            }
            Set<ClusterId> live = new HashSet<>();
            for (BackendCluster cluster : state.grid().get().clusters()) {
                live.add(cluster.id());
                clusters.computeIfAbsent(cluster.id(), id -> new ClusterMeters(meters, id, state));
            }
            clusters.entrySet().removeIf(entry -> {
                if (live.contains(entry.getKey())) {
                    return false;
                }
                entry.getValue().remove();
                return true;
            });
        } finally {
            syncLock.unlock();
        }
    }

    /** Removes every meter this instance registered; later events count nothing visible. */
    @Override
    public void close() {
        syncLock.lock();
        try {
            closed = true;
            clusters.values().forEach(ClusterMeters::remove);
            clusters.clear();
            meters.removeAll();
        } finally {
            syncLock.unlock();
        }
    }

    /**
     * The meters of {@code cluster}, or null for a cluster not in the grid in force; one of the grid that is not synced
     * yet is synced first. Nullable rather than an {@code Optional} and a lambda: every answer calls it.
     */
    private @Nullable ClusterMeters meters(ClusterId cluster) {
        requireNonNull(cluster, "cluster");
        ClusterMeters found = clusters.get(cluster);
        if (found == null && state.grid().get().cluster(cluster).isPresent()) {
            syncClusters();
            found = clusters.get(cluster);
        }
        return found;
    }

    /** The {@code result} label of {@code grid_config_reloads_total}. */
    private enum ReloadResult {
        APPLIED,
        REFUSED;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
