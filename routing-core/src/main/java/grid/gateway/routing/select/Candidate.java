package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.load.ClusterPrices;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * An admitted cluster that serves the request's model, with its windowed worst queue depth.
 *
 * <p>Thread-safe (immutable).
 *
 * @param cluster the cluster
 * @param queueDepth its windowed worst queue depth (plus what this replica sent it since its latest scrape, with
 *     {@code count_sent_since_scrape}); empty when unmeasured
 * @param prices its prefill rate and queued-request cost when they are its own ({@code auto}); empty: the
 *     configured ones
 * @param busyShare with {@code count_sent_since_scrape}, how full its batch is: (running + sent since the scrape) ÷
 *     slots, or the sent count where the engine reports no running gauge; 0 otherwise. It orders candidates whose
 *     queues cost the same, so a burst into free slots spreads in proportion to them.
 * @param prefillBacklogSeconds with {@code load.order_by: expected_wait}, the prefill this replica sent it that it has
 *     not yet worked off, seconds ({@code PrefillBacklog}); 0 otherwise
 */
public record Candidate(
        BackendCluster cluster,
        OptionalDouble queueDepth,
        Optional<ClusterPrices> prices,
        double busyShare,
        double prefillBacklogSeconds) {
    public Candidate {
        requireNonNull(cluster, "cluster");
        requireNonNull(queueDepth, "queueDepth");
        requireNonNull(prices, "prices");
    }

    /** A candidate without a prefill backlog. */
    public Candidate(
            BackendCluster cluster, OptionalDouble queueDepth, Optional<ClusterPrices> prices, double busyShare) {
        this(cluster, queueDepth, prices, busyShare, 0);
    }

    /** A candidate priced by the configured numbers. */
    public Candidate(BackendCluster cluster, OptionalDouble queueDepth) {
        this(cluster, queueDepth, Optional.empty(), 0);
    }

    /** A candidate with its prices, no fresher load signal. */
    public Candidate(BackendCluster cluster, OptionalDouble queueDepth, Optional<ClusterPrices> prices) {
        this(cluster, queueDepth, prices, 0);
    }

    /**
     * What its queue costs, the order of selection: the queue depth, or with its own queued-request cost
     * ({@code queued_request_seconds: auto}) the depth times that cost, in seconds, so that a cluster that drains its
     * line twice as fast takes twice the requests before it looks as loaded. With configured prices every candidate
     * has the same cost, and the order is the seed's order by depth; an unmeasured cluster is priced at the
     * configured cost.
     */
    public double queueCost() {
        double depth = queueDepth.orElse(0);
        return prices.map(p -> depth * p.queuedRequestSeconds()).orElse(depth);
    }

    /** Whether a queue sample lies in the window. */
    public boolean isMeasured() {
        return queueDepth.isPresent();
    }
}
