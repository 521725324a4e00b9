package grid.gateway.routing;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.load.Calibration;
import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.InFlightSinceScrape;
import grid.gateway.routing.load.Occupancy;
import grid.gateway.routing.load.QueueSample;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.select.Candidate;
import grid.gateway.routing.select.ExpectedWait;
import grid.gateway.routing.select.LoadGate;
import grid.gateway.routing.select.LoadOrder;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What a {@link SiteRouter} knows of each cluster's load besides its windowed depth: the engines' series
 * ({@link Calibration}), the requests it has in flight there since the latest scrape ({@link InFlightSinceScrape}),
 * and which series an {@code auto} estimate lacks. It turns them into each admitted cluster's {@link Candidate}.
 *
 * <pre>
 *   scraped(c, s, mark)    depth → window; in flight sent before the scrape began → forgotten; series → calibration;
 *                          a series an auto estimate needs and the scrape lacked → the listener, once per series
 *   sent(c) / ended(d)     a request forwarded to c / its answer ended
 *   candidate(c, depth)    depth + (count_sent_since_scrape) in flight beyond the free slots, busy share, prices, backlog
 * </pre>
 *
 * <p>Thread-safe: each part is.
 */
final class ClusterLoads {
    private final RoutingParts parts;
    private final Calibration calibration = new Calibration();
    private final InFlightSinceScrape inFlight = new InFlightSinceScrape();
    /** The series each cluster's latest scrape lacked (those its auto estimates need). */
    private final ConcurrentMap<ClusterId, Set<String>> missing = new ConcurrentHashMap<>();
    /** The series the listener was told each cluster lacked: each once, however often it comes and goes. */
    private final ConcurrentMap<ClusterId, Set<String>> told = new ConcurrentHashMap<>();

    ClusterLoads(RoutingParts parts) {
        this.parts = parts;
    }

    /** Forgets clusters not in {@code live}. */
    void retain(Set<ClusterId> live) {
        calibration.retain(live);
        inFlight.retain(live);
        missing.keySet().retainAll(live);
        told.keySet().retainAll(live);
    }

    /** The in-flight mark a scrape beginning now takes ({@link InFlightSinceScrape#mark}). */
    long mark() {
        return inFlight.mark();
    }

    /**
     * One scrape of {@code cluster}, begun at in-flight mark {@code began}: its depth enters the window (the requests
     * sent before it began are in that depth now), and its series feed calibration.
     */
    void scraped(BackendCluster cluster, EngineSample sample, long began, PrefixAffinitySettings settings) {
        ClusterId id = cluster.id();
        if (sample.waiting().isPresent()) {
            parts.window()
                    .record(
                            id,
                            new QueueSample(sample.atNanos(), sample.waiting().getAsDouble()));
            inFlight.scraped(id, began);
        }
        calibration.observe(id, sample);
        calibration.capacity(id).ifPresent(capacity -> parts.memory().measuredCapacity(id, capacity));
        Set<String> now = calibration.missing(id, settings, cluster.maxRunning().isPresent());
        missing.put(id, now);
        Set<String> toldOf = told.computeIfAbsent(id, absent -> ConcurrentHashMap.newKeySet());
        for (String series : now) {
            // A series missing from every other page would otherwise be told (and logged) every other round.
            if (toldOf.add(series)) {
                parts.listener().calibrationSeriesMissing(id, series);
            }
        }
    }

    /** The series {@code cluster}'s latest scrape lacked that its {@code auto} estimates need. */
    Set<String> missing(ClusterId cluster) {
        return missing.getOrDefault(cluster, Set.of());
    }

    /** A request was forwarded to {@code cluster}; returns its stamp for {@link #ended}. */
    long sent(ClusterId cluster) {
        return inFlight.sent(cluster);
    }

    /**
     * {@code decision} is forwarded: it is stamped in flight at its cluster and, under {@code expected_wait}, its
     * uncached prefill joins the cluster's prefill backlog (its mark re-anchored by its first token).
     */
    RouteDecision forwarded(RouteDecision decision, PrefixAffinitySettings settings, LoadRules rules) {
        ClusterId id = decision.cluster().id();
        long stamp = sent(id);
        long mark = -1;
        if (rules.orderBy() == LoadOrder.EXPECTED_WAIT) {
            double uncached =
                    ExpectedWait.uncachedBlocks(decision.keys(), decision.run()) * (double) LoadGate.TOKENS_PER_BLOCK;
            double prefill = prices(decision.cluster(), settings).prefillTokensPerSecond();
            mark = parts.backlog().sent(id, uncached / prefill, parts.clock().nanoTime());
        }
        return new RouteDecision(
                decision.cluster(),
                decision.outcome(),
                decision.run(),
                decision.keys(),
                decision.evidence(),
                mark,
                OptionalLong.of(stamp));
    }

    /** The request of {@code decision} ended: its answer was relayed, or it failed. */
    void ended(RouteDecision decision) {
        ClusterId cluster = decision.cluster().id();
        if (decision.inFlightStamp().isPresent()) {
            inFlight.ended(cluster, decision.inFlightStamp().getAsLong());
        } else {
            inFlight.endedUnstamped(cluster);
        }
    }

    /** Requests in flight at {@code cluster} since its latest scrape began. */
    int inFlight(ClusterId cluster) {
        return inFlight.count(cluster);
    }

    /** The prices in force for {@code cluster} under {@code settings}. */
    ClusterPrices prices(BackendCluster cluster, PrefixAffinitySettings settings) {
        return prices(cluster.id(), cluster.maxRunning(), settings);
    }

    /** The prices in force for {@code cluster}, whose operator's batch limit is {@code maxRunning}. */
    ClusterPrices prices(ClusterId cluster, OptionalInt maxRunning, PrefixAffinitySettings settings) {
        return calibration.prices(cluster, settings, maxRunning);
    }

    /** {@code cluster}'s batch at its latest scrape, with the operator's slots where set. */
    Occupancy occupancy(BackendCluster cluster) {
        OptionalInt limit = cluster.maxRunning();
        return calibration
                .occupancy(cluster.id())
                .map(b -> b.withConfigured(limit))
                .orElseGet(() -> Occupancy.unreported(limit));
    }

    /**
     * {@code cluster} as a candidate: its windowed depth plus, with {@code count_sent_since_scrape}, what this replica
     * has in flight there beyond the slots its latest scrape found free, how full its batch is, its prices under
     * {@code auto}, and its prefill backlog under {@code expected_wait}.
     */
    Candidate candidate(
            BackendCluster cluster, OptionalDouble depth, PrefixAffinitySettings settings, LoadRules rules, long now) {
        ClusterId id = cluster.id();
        OptionalDouble load = depth;
        double busyShare = 0;
        if (rules.countSentSinceScrape()) {
            int pending = inFlight.count(id);
            Occupancy batch = occupancy(cluster);
            if (depth.isPresent()) {
                load = OptionalDouble.of(depth.getAsDouble() + batch.queued(pending));
            }
            busyShare = batch.busyShare(pending);
        }
        Optional<ClusterPrices> prices =
                settings.auto().any() ? Optional.of(prices(cluster, settings)) : Optional.empty();
        double waiting =
                rules.orderBy() == LoadOrder.EXPECTED_WAIT ? parts.backlog().seconds(id, now) : 0;
        return new Candidate(cluster, load, prices, busyShare, waiting);
    }
}
