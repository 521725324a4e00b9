package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.load.EngineSample;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.PriorityQueue;

/**
 * The state of one simulated cluster in a run ({@link ClusterModel}): slots, the waiting line, the prefill server
 * and the prefix cache.
 *
 * <pre>
 *   admit(f)        a free slot → start(f), else join the line
 *   start(f)        cache lookup (the hit), prefill queued FIFO behind earlier prefills → first token and done times
 *   firstToken(f)   the prompt's blocks are computed: store them
 *   finish(f)       the answer's blocks too; the slot goes to the head of the line
 * </pre>
 *
 * <p>Not thread-safe; owned by one run's event loop.
 */
final class SimCluster {
    final ClusterModel model;
    final EngineCache cache;
    private final ArrayDeque<Flight> line = new ArrayDeque<>();
    private final PriorityQueue<Double> doneTimes = new PriorityQueue<>();
    private int running;
    private double prefillFreeAt;
    private double lineUncached;
    /** vLLM's cumulative series, exactly as this model runs (what a scrape of the engines would read). */
    private double promptTokens;

    private double cachedTokensTotal;
    private double prefillSeconds;
    private double runningSeconds;
    private long runningRequests;

    SimCluster(ClusterModel model) {
        this.model = requireNonNull(model, "model");
        this.cache = new EngineCache(model.cacheTokens() / EngineBlocks.BLOCK_TOKENS);
    }

    /** Takes {@code flight} at {@code now}: true when it started (its times are set), false when it waits. */
    boolean admit(Flight flight, double now) {
        if (running < model.slots()) {
            start(flight, now);
            return true;
        }
        line.addLast(flight);
        lineUncached += flight.expectedUncached;
        return false;
    }

    /** The flight finished at {@code now}; returns the waiting flight that takes its slot, or null. */
    Flight finish(Flight flight, double now) {
        cache.store(flight.turn.blocks(), flight.turn.blocks().length);
        running--;
        doneTimes.remove(flight.done);
        runningSeconds += flight.done - flight.started;
        runningRequests++;
        Flight next = line.pollFirst();
        if (next != null) {
            lineUncached -= next.expectedUncached;
            start(next, now);
        }
        return next;
    }

    /** The flight's prompt is computed: its full prompt blocks enter the cache. */
    void firstToken(Flight flight) {
        cache.store(
                flight.turn.blocks(),
                Math.min(flight.turn.blocks().length, flight.turn.promptTokens() / EngineBlocks.BLOCK_TOKENS));
    }

    /**
     * What a scrape of this cluster's engines reads at {@code nanos}: the waiting line, the running sequences, and
     * vLLM's cumulative counters as this model produces them (a request's prefill time is the time the prefill server
     * spends on its uncached tokens; its running time is from its slot to its last token).
     */
    EngineSample engineSample(long nanos) {
        return new EngineSample(
                nanos,
                OptionalDouble.of(line.size()),
                OptionalDouble.of(running),
                OptionalDouble.of(promptTokens),
                OptionalDouble.of(cachedTokensTotal),
                OptionalDouble.of(prefillSeconds),
                OptionalDouble.of(runningSeconds),
                OptionalDouble.of(runningRequests),
                OptionalDouble.of(model.cacheTokens()));
    }

    /** Requests waiting for a slot: the scraped queue depth. */
    int waiting() {
        return line.size();
    }

    /** The prompt tokens of {@code turn} this cluster holds now, without refreshing them. */
    int cachedTokens(Turn turn) {
        return cache.lookup(turn.blocks(), turn.maxHitBlocks(), false) * EngineBlocks.BLOCK_TOKENS;
    }

    /**
     * The oracle's prediction of the time to first token of {@code turn} sent here at {@code now}: the later of
     * (a) when a slot frees for it, from the running sequences' known end times (a lower bound when the line is
     * longer than the running set) and (b) when the prefill server has done the work queued ahead, from true cache
     * contents; then its own uncached prefill.
     */
    double predictedTtft(Turn turn, double now) {
        int free = model.slots() - running;
        double slotAt = now;
        if (line.size() >= free) {
            Double[] ends = doneTimes.toArray(new Double[0]);
            Arrays.sort(ends);
            int k = Math.min(line.size() - free, ends.length - 1);
            slotAt = Math.max(now, ends[k]);
        }
        double prefillAt = Math.max(now, prefillFreeAt) + lineUncached / model.prefillTokensPerSecond();
        double uncached = turn.promptTokens() - cachedTokens(turn);
        return Math.max(slotAt, prefillAt) - now + uncached / model.prefillTokensPerSecond();
    }

    private void start(Flight flight, double now) {
        Turn turn = flight.turn;
        flight.cachedTokens = cache.lookup(turn.blocks(), turn.maxHitBlocks(), true) * EngineBlocks.BLOCK_TOKENS;
        double prefill = (turn.promptTokens() - flight.cachedTokens) / model.prefillTokensPerSecond();
        promptTokens += turn.promptTokens();
        cachedTokensTotal += flight.cachedTokens;
        prefillSeconds += prefill;
        flight.started = now;
        double begin = Math.max(now, prefillFreeAt);
        prefillFreeAt = begin + prefill;
        flight.firstToken = prefillFreeAt;
        flight.done = flight.firstToken + turn.outputTokens() / model.decodeTokensPerSecond();
        doneTimes.add(flight.done);
        running++;
    }
}
