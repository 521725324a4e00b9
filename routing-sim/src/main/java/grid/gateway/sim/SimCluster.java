package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.Arrays;
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
 * It counts what vLLM would export ({@link #series}): token counters at the first token, histograms at the end.
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
    private long promptTokens;
    private long queryTokens;
    private long hitTokens;
    private double prefillSeconds;
    private double inferenceSeconds;
    private double queueSeconds;
    private long finished;

    SimCluster(ClusterModel model) {
        this.model = requireNonNull(model, "model");
        this.cache = new EngineCache(model.cacheTokens() / EngineBlocks.BLOCK_TOKENS);
    }

    /** Takes {@code flight} at {@code now}: true when it started (its times are set), false when it waits. */
    boolean admit(Flight flight, double now) {
        flight.queuedAt = now;
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
        prefillSeconds += (flight.turn.promptTokens() - flight.cachedTokens) / model.prefillTokensPerSecond();
        inferenceSeconds += flight.done - flight.slotStart;
        queueSeconds += flight.slotStart - flight.queuedAt;
        finished++;
        Flight next = line.pollFirst();
        if (next != null) {
            lineUncached -= next.expectedUncached;
            start(next, now);
        }
        return next;
    }

    /** The flight's prompt is computed: its full prompt blocks enter the cache. */
    void firstToken(Flight flight) {
        promptTokens += flight.turn.promptTokens();
        // vLLM's lookup counts one token more than the prompt (recorded: queries = prompt tokens + requests).
        queryTokens += flight.turn.promptTokens() + 1;
        hitTokens += flight.cachedTokens;
        cache.store(
                flight.turn.blocks(),
                Math.min(flight.turn.blocks().length, flight.turn.promptTokens() / EngineBlocks.BLOCK_TOKENS));
    }

    /** What a scrape of this cluster's {@code /metrics} finds at {@code nanos}. */
    EngineSeries series(long nanos) {
        return new EngineSeries(
                nanos,
                promptTokens,
                queryTokens,
                hitTokens,
                prefillSeconds,
                finished,
                inferenceSeconds,
                finished,
                queueSeconds,
                finished,
                finished,
                running,
                line.size(),
                EngineBlocks.BLOCK_TOKENS,
                model.cacheTokens() / EngineBlocks.BLOCK_TOKENS);
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
        return predictedTtft(turn, now, true);
    }

    /** {@link #predictedTtft(Turn, double)}, or with {@code cacheAware} false as if nothing of the turn were cached. */
    double predictedTtft(Turn turn, double now, boolean cacheAware) {
        int free = model.slots() - running;
        double slotAt = now;
        if (line.size() >= free) {
            Double[] ends = doneTimes.toArray(new Double[0]);
            Arrays.sort(ends);
            int k = Math.min(line.size() - free, ends.length - 1);
            slotAt = Math.max(now, ends[k]);
        }
        double prefillAt = Math.max(now, prefillFreeAt) + lineUncached / model.prefillTokensPerSecond();
        double uncached = turn.promptTokens() - (cacheAware ? cachedTokens(turn) : 0);
        return Math.max(slotAt, prefillAt) - now + uncached / model.prefillTokensPerSecond();
    }

    private void start(Flight flight, double now) {
        Turn turn = flight.turn;
        flight.slotStart = now;
        flight.cachedTokens = cache.lookup(turn.blocks(), turn.maxHitBlocks(), true) * EngineBlocks.BLOCK_TOKENS;
        double prefill = (turn.promptTokens() - flight.cachedTokens) / model.prefillTokensPerSecond();
        double begin = Math.max(now, prefillFreeAt);
        flight.prefillStart = begin;
        prefillFreeAt = begin + prefill;
        flight.firstToken = prefillFreeAt;
        flight.done = flight.firstToken + turn.outputTokens() / model.decodeTokensPerSecond();
        doneTimes.add(flight.done);
        running++;
    }
}
