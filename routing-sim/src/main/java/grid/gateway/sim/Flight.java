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

    int cachedTokens;
    /** The cached tokens the gateway predicted (run × 64), for grid_site_route. */
    long predictedTokens;
    /** When it got its slot. */
    double started;

    double firstToken;
    double done;

    Flight(Turn turn, int session, int turnIndex, double arrival) {
        this.turn = turn;
        this.session = session;
        this.turnIndex = turnIndex;
        this.arrival = arrival;
    }
}
