package grid.gateway.routing.load;

import java.util.OptionalInt;

/**
 * A backend cluster's batch at its latest scrape: the sequences running ({@code vllm:num_requests_running}) and its
 * slots, with whether those are known to be its batch limit.
 *
 * <p>vLLM exports no batch limit ({@code max_num_seqs}), and the most sequences seen running is only a lower bound of
 * it: an engine that was never busy has been seen running one or two. Taking that for the limit made every request
 * sent after a scrape look queued. So the slots are known only from the operator ({@code max_running}) or from
 * saturation: a scrape that saw a line wait while the batch ran at the most ever seen. Until then the free slots are
 * not known, and what this replica has in flight there is never counted as queued ({@link #queued}): a slot count this
 * replica learned can only make a queue look shorter than counting every request in flight, and an unknown one never
 * makes it longer than the scraped line.
 *
 * <p>Thread-safe (immutable).
 *
 * @param running sequences running at the latest scrape
 * @param slots the batch limit when known, else the most sequences seen running; at least 1
 * @param known whether {@code slots} is the batch limit (configured, or seen saturated)
 */
public record Occupancy(double running, double slots, boolean known) {
    /** This batch with the operator's {@code maxRunning} slots where set. */
    public Occupancy withConfigured(OptionalInt maxRunning) {
        return maxRunning.isPresent() ? new Occupancy(running, maxRunning.getAsInt(), true) : this;
    }

    /** The batch of a cluster whose running gauge is not reported: only the operator's slots, if any, are known. */
    public static Occupancy unreported(OptionalInt maxRunning) {
        return maxRunning.isPresent() ? new Occupancy(0, maxRunning.getAsInt(), true) : new Occupancy(0, 1, false);
    }

    /** Slots free at the latest scrape; infinite while the slots are not known. */
    public double free() {
        return known ? Math.max(0, slots - running) : Double.POSITIVE_INFINITY;
    }

    /** Of {@code inFlight} requests sent since the scrape, those beyond the free slots: they wait in the line. */
    public double queued(int inFlight) {
        return Math.max(0, inFlight - free());
    }

    /**
     * How full the batch is with {@code inFlight} more: (running + in flight) ÷ slots, the most seen running standing
     * in for unknown slots. It orders candidates whose queues cost the same, so a burst into free slots spreads in
     * proportion to them.
     */
    public double busyShare(int inFlight) {
        return (running + inFlight) / Math.max(1, slots);
    }
}
