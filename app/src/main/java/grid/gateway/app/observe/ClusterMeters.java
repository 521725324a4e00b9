package grid.gateway.app.observe;

import grid.gateway.app.forward.LeftoverFound;
import grid.gateway.app.forward.RetryReason;
import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.app.load.PodCensus;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.select.AffinityOutcome;
import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The meters of one backend cluster, all labelled {@code cluster="<site>/<name>"}: its gauges (the pod census of its
 * latest scrape round among them), its DNS failure counter, its latency
 * timer, its error and cached-token counters (registered at zero so that a first increment shows in
 * {@code increase()}), and its status counters, created at the first answer with each status.
 *
 * <p>Thread-safe. After {@link #remove()} a status counter created by a request still in flight removes itself
 * again: whichever of the two runs second sees the other's write.
 */
final class ClusterMeters {
    /** The outcome label of cached tokens for a request that affinity did not decide (one candidate, or pinned). */
    static final String NO_OUTCOME = "none";
    /** The state label of pods that gave a queue depth in the cluster's latest round. */
    static final String MEASURED = "measured";
    /** The state label of pods that failed the round or gave no queue depth. */
    static final String UNMEASURED = "unmeasured";

    private static final int OUTCOMES = AffinityOutcome.values().length + 1;
    private static final int NO_OUTCOME_INDEX = OUTCOMES - 1;
    private static final int LOWEST_STATUS = 100;
    private static final int HIGHEST_STATUS = 599;
    private static final int STATUS_SLOTS = HIGHEST_STATUS - LOWEST_STATUS + 2;

    private final MeterSet meterSet;
    private final String cluster;
    private final List<Meter> fixed = new ArrayList<>();
    private final Timer latency;
    private final Map<UpstreamFailure, Counter> errors = new EnumMap<>(UpstreamFailure.class);
    private final Map<RetryReason, Counter> retries = new EnumMap<>(RetryReason.class);
    private final Map<LeftoverFound, Counter> leftovers = new EnumMap<>(LeftoverFound.class);
    /** By outcome: {@link AffinityOutcome#ordinal()}, then {@link #NO_OUTCOME} last (no string lookup per answer). */
    private final Counter[] predicted = new Counter[OUTCOMES];

    private final Counter[] reported = new Counter[OUTCOMES];
    /**
     * By status: index {@code status - 99} for 100 to 599, 0 for {@code other}; created at the first answer with each
     * (an array, not a map keyed by a boxed status: no allocation per answer).
     */
    private final AtomicReferenceArray<Counter> statuses = new AtomicReferenceArray<>(STATUS_SLOTS);

    /** {@code grid_cluster_calibration_missing} by series, registered at the series' first absence. */
    private final ConcurrentMap<String, Meter> missingSeries = new ConcurrentHashMap<>();

    private final ClusterId id;
    private final ClusterState state;
    private final Counter dnsFailures;
    private volatile PodCensus census = PodCensus.NONE;
    private volatile boolean removed;

    ClusterMeters(MeterSet meterSet, ClusterId id, ClusterState state) {
        this.meterSet = meterSet;
        this.cluster = id.toString();
        this.id = id;
        this.state = state;
        fixed.add(meterSet.gauge(GatewayMeter.QUEUE_DEPTH, () -> queueDepth(id, state), cluster));
        fixed.add(meterSet.gauge(GatewayMeter.ADMITTED, () -> admitted(id, state), cluster));
        fixed.add(meterSet.gauge(
                GatewayMeter.PREFIX_INDEX_ENTRIES,
                () -> (double) state.prefixMemory().entries(id),
                cluster));
        fixed.add(meterSet.gauge(
                GatewayMeter.PREFILL_TOKENS_PER_SECOND,
                () -> state.prices().apply(id).prefillTokensPerSecond(),
                cluster));
        fixed.add(meterSet.gauge(
                GatewayMeter.QUEUED_REQUEST_SECONDS,
                () -> state.prices().apply(id).queuedRequestSeconds(),
                cluster));
        fixed.add(meterSet.gauge(
                GatewayMeter.PREFIX_INDEX_CAPACITY,
                () -> (double) state.prefixMemory().capacity(id),
                cluster));
        fixed.add(meterSet.gauge(GatewayMeter.CLUSTER_PODS, () -> (double) census.measured(), cluster, MEASURED));
        fixed.add(meterSet.gauge(GatewayMeter.CLUSTER_PODS, () -> (double) census.unmeasured(), cluster, UNMEASURED));
        fixed.add(meterSet.gauge(GatewayMeter.PARTLY_MEASURED, () -> census.partlyMeasured() ? 1.0 : 0.0, cluster));
        this.dnsFailures = meterSet.counter(GatewayMeter.DNS_FAILURES, cluster);
        fixed.add(dnsFailures);
        this.latency = meterSet.timer(GatewayMeter.UPSTREAM_LATENCY, cluster);
        fixed.add(latency);
        for (UpstreamFailure kind : UpstreamFailure.values()) {
            errors.put(kind, fixedCounter(GatewayMeter.UPSTREAM_ERRORS, kind.label()));
        }
        for (RetryReason reason : RetryReason.values()) {
            retries.put(reason, fixedCounter(GatewayMeter.UPSTREAM_RETRIES, reason.label()));
        }
        for (LeftoverFound found : LeftoverFound.values()) {
            leftovers.put(found, fixedCounter(GatewayMeter.UPSTREAM_LEFTOVERS, found.label()));
        }
        for (AffinityOutcome outcome : AffinityOutcome.values()) {
            predicted[outcome.ordinal()] = fixedCounter(GatewayMeter.CACHED_TOKENS_PREDICTED, outcome.label());
            reported[outcome.ordinal()] = fixedCounter(GatewayMeter.CACHED_TOKENS_REPORTED, outcome.label());
        }
        predicted[NO_OUTCOME_INDEX] = fixedCounter(GatewayMeter.CACHED_TOKENS_PREDICTED, NO_OUTCOME);
        reported[NO_OUTCOME_INDEX] = fixedCounter(GatewayMeter.CACHED_TOKENS_REPORTED, NO_OUTCOME);
    }

    /** Counts an answer with {@code status} that took {@code toHeaders}. */
    void answered(int status, Duration toHeaders) {
        int slot = isHttpStatus(status) ? status - LOWEST_STATUS + 1 : 0;
        Counter counter = statuses.get(slot);
        if (counter == null) {
            // The registry returns the one counter of a name and tags, so two threads racing here count on the same.
            Counter created = meterSet.counter(GatewayMeter.UPSTREAM_REQUESTS, cluster, statusLabel(status));
            counter = statuses.compareAndExchange(slot, null, created);
            if (counter == null) {
                counter = created;
            }
            if (removed) {
                meterSet.remove(List.of(counter));
            }
        }
        counter.increment();
        if (!toHeaders.isNegative()) {
            latency.record(toHeaders);
        }
    }

    /** The cluster's latest scrape round ended with {@code latest}. */
    void census(PodCensus latest) {
        census = latest;
    }

    /** {@code series} went missing: its {@code grid_cluster_calibration_missing} gauge exists from now on. */
    void seriesMissing(String series) {
        missingSeries.computeIfAbsent(series, name -> {
            Meter gauge = meterSet.gauge(
                    GatewayMeter.CALIBRATION_MISSING,
                    () -> state.missingSeries().apply(id).contains(name) ? 1.0 : 0.0,
                    cluster,
                    name);
            if (removed) {
                meterSet.remove(List.of(gauge));
            }
            return gauge;
        });
    }

    void dnsFailed() {
        dnsFailures.increment();
    }

    void failed(UpstreamFailure kind) {
        GatewayMetrics.registered(errors, kind).increment();
    }

    void retried(RetryReason reason) {
        GatewayMetrics.registered(retries, reason).increment();
    }

    void leftover(LeftoverFound found) {
        GatewayMetrics.registered(leftovers, found).increment();
    }

    /**
     * Counts one answer's cached tokens under {@code outcome}, {@code null} for {@link #NO_OUTCOME} (affinity did not
     * decide).
     */
    void cachedTokens(@Nullable AffinityOutcome outcome, long predictedTokens, long reportedTokens) {
        int index = outcome == null ? NO_OUTCOME_INDEX : outcome.ordinal();
        predicted[index].increment(predictedTokens);
        reported[index].increment(reportedTokens);
    }

    /** Removes every meter of this cluster from the registry. */
    void remove() {
        removed = true;
        meterSet.remove(fixed);
        List<Counter> created = new ArrayList<>();
        for (int i = 0; i < statuses.length(); i++) {
            Counter counter = statuses.get(i);
            if (counter != null) {
                created.add(counter);
            }
        }
        meterSet.remove(created);
        meterSet.remove(List.copyOf(missingSeries.values()));
    }

    private Counter fixedCounter(GatewayMeter meter, String label) {
        Counter counter = meterSet.counter(meter, cluster, label);
        fixed.add(counter);
        return counter;
    }

    /** The status label: the exact code for a valid HTTP status (100 to 599), else {@code other}. */
    static String statusLabel(int status) {
        return isHttpStatus(status) ? Integer.toString(status) : "other";
    }

    private static boolean isHttpStatus(int status) {
        return status >= 100 && status <= 599;
    }

    private static double queueDepth(ClusterId id, ClusterState state) {
        OptionalDouble worst =
                state.admission().worstQueueDepth(id, state.clock().nanoTime());
        return worst.isPresent() ? worst.getAsDouble() : Double.NaN;
    }

    private static double admitted(ClusterId id, ClusterState state) {
        Optional<BackendCluster> cluster = state.grid().get().cluster(id);
        if (cluster.isEmpty()) {
            return Double.NaN;
        }
        return state.admission().admits(cluster.get(), state.clock().nanoTime()) ? 1.0 : 0.0;
    }
}
