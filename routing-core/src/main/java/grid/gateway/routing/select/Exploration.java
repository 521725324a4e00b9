package grid.gateway.routing.select;

import java.util.random.RandomGenerator;

/**
 * The 2% of requests that skip affinity and go first by load, so that a second cluster learns a shared prompt
 * (docs/design.md §6; the seed's "When load wins").
 *
 * <p>Stateless and thread-safe; the random source is the caller's.
 */
public final class Exploration {
    /** The share of requests that explore. */
    public static final double EXPLORE_FRACTION = 0.02;

    private Exploration() {}

    /** Draws once: whether this request explores. */
    public static boolean explores(RandomGenerator random) {
        return random.nextDouble() < EXPLORE_FRACTION;
    }
}
