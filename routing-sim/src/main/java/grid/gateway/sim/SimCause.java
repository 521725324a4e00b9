package grid.gateway.sim;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A cause of slow first tokens that a simulation run can switch off, to measure what it costs ({@link Decomposition}).
 * Each is switched off in the simulation around the real router, never by changing the router's rules.
 *
 * <p>Thread-safe (immutable).
 */
public enum SimCause {
    /**
     * The seed's 2% exploration: the router's random source never draws under 2% where exploration asks (its other
     * draws, the tie-breaks, are the same draws as with exploration on).
     */
    EXPLORATION("exploration"),
    /**
     * The seed's drop of a request's blocks on 429/5xx: the error answers still come (and are retried), but the router
     * does not hear their status, so it keeps believing what the cluster holds.
     */
    DROP_ON_ERROR("drop on error"),
    /**
     * The same drop on a 429 only: the router does not hear a 429's status (the answer still comes and is retried),
     * while a 503 still drops. A narrower rule than the seed's, measured to weigh it (a 429 refuses a
     * request; it says nothing about what the engine's cache holds).
     */
    DROP_ON_429("drop on 429", "without drop on 429 (5xx still drops)"),
    /**
     * How the router places the requests it leaves to load (outcome {@code miss}: no run, or one under the sticky rule,
     * as a conversation's first turn): the simulation places them by true load instead, the least predicted time to
     * first token from true queues and prefill paths as if nothing were cached (the oracle without its cache knowledge).
     */
    MISS_LOAD("miss load placement", "misses placed by true load"),
    /**
     * The same, placed where the oracle would: true load and true caches, so a miss also finds the partial prefix
     * the sticky rule does not count.
     */
    MISS_PLACEMENT("miss placement", "misses placed by the oracle"),
    /**
     * The slots the router cannot see: vLLM exports no {@code max_num_seqs}, so the router takes a cluster's slots to
     * be the most sequences it has seen running, and a cluster never seen full shows a queue it does not have. Switched
     * off, the simulation tells the router each cluster's true slot count once, at that cluster's first scrape, as a
     * sample whose running count is the slots (what an operator's per-cluster batch limit would give, or
     * {@code vllm:kv_cache_usage_perc} where KV memory limits the batch); the router's rules are unchanged.
     */
    UNKNOWN_SLOTS("unknown slots", "slots known (told at the first scrape)");

    private final String label;
    private final String row;

    SimCause(String label) {
        this(label, "without " + label);
    }

    SimCause(String label, String row) {
        this.label = label;
        this.row = row;
    }

    /** The name in reports. */
    public String label() {
        return label;
    }

    /** The label of the run with it switched off. */
    public String row() {
        return row;
    }

    /** How the command line names it ({@code --without}): its constant in lower case, dashed. */
    public String option() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The cause {@code option} names ({@link #option()}); an unknown name fails, listing the known ones. */
    public static SimCause ofOption(String option) {
        for (SimCause cause : values()) {
            if (cause.option().equals(option)) {
                return cause;
            }
        }
        throw new IllegalArgumentException("--without: no cause " + option + " (expected one of "
                + Arrays.stream(values()).map(SimCause::option).collect(Collectors.joining(", ")) + ")");
    }
}
