package grid.gateway.sim;

import grid.gateway.routing.select.AffinityOutcome;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One request on its way through a run: where it went, how it was decided, and when its milestones fell.
 *
 * <p>Not thread-safe; owned by one run's event loop.
 */
final class Flight {
    final Turn turn;
    final int session;
    final int turnIndex;
    final double arrival;
    int cluster = -1;
    Optional<AffinityOutcome> outcome = Optional.empty();
    /** What the policy needs at the first token (the gateway's route decision), or null. */
    @Nullable
    Object decision;
    /** The prefill the oracle expected at its cluster, for its estimate of the work queued ahead. */
    double expectedUncached;
    /** The replica that routed the latest attempt ({@link ReplicaSpread}), 0 with one. */
    int replica;
    /** The attempt under way: 0, or 1 for the retry after an error answer. */
    int attempt;
    /** Both attempts were answered with errors: never served. */
    boolean failed;
    /** {@code grid_site_route}'s predicted cached tokens (the decision's run × 64), or -1 for other policies. */
    long predictedCached = -1;
    /** When it reached its cluster, and when it got a slot there. */
    double queuedAt;

    double slotStart;
    /** When its prefill began on the cluster's prefill path (after the prompts ahead of it). */
    double prefillStart;

    int cachedTokens;

    double firstToken;
    double done;

    Flight(Turn turn, int session, int turnIndex, double arrival) {
        this.turn = turn;
        this.session = session;
        this.turnIndex = turnIndex;
        this.arrival = arrival;
    }
}
