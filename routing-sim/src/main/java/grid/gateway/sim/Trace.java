package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A workload's sessions, generated once from a seed and replayed by every policy at every load.
 *
 * <p>Thread-safe (immutable).
 *
 * @param workload what it models: a {@link Workload}'s label, or a replayed trace's name (for example {@code mooncake})
 * @param sessions its sessions, by start
 * @param replayed true for a trace read from a file ({@link MooncakeTrace}), false for a synthetic one
 */
public record Trace(String workload, List<Session> sessions, boolean replayed) {
    public Trace {
        requireNonNull(workload, "workload");
        sessions = List.copyOf(sessions);
        if (sessions.isEmpty()) {
            throw new IllegalArgumentException("trace " + workload + " has no requests");
        }
    }

    /** A synthetic trace of {@code workload}. */
    public Trace(Workload workload, List<Session> sessions) {
        this(workload.label(), sessions, false);
    }

    /** All requests. */
    public int requests() {
        return sessions.stream().mapToInt(s -> s.turns().size()).sum();
    }

    /** Mean turns a session. */
    public double meanTurns() {
        return requests() / (double) sessions.size();
    }

    /** Mean prompt tokens a request. */
    public double meanPromptTokens() {
        return mean(Turn::promptTokens);
    }

    /** Mean prompt tokens a request that no earlier request shared (its prefill with perfect reuse). */
    public double meanIdealUncachedTokens() {
        return mean(Turn::idealUncachedTokens);
    }

    /** Mean answer tokens a request. */
    public double meanOutputTokens() {
        return mean(Turn::outputTokens);
    }

    /**
     * The unshared prompt work of the busiest tenth of the trace's time span ÷ that of a mean tenth: 1 for a steady
     * trace. Synthetic traces are steady by construction (1); a replayed trace's reuse builds up as it goes, so its
     * early minutes carry far more prefill than its mean.
     */
    public double peakToMeanWork() {
        if (!replayed) {
            return 1;
        }
        double first = sessions.getFirst().start();
        double span = sessions.getLast().start() - first;
        if (!(span > 0)) {
            return 1;
        }
        double[] work = new double[10];
        double total = 0;
        for (Session s : sessions) {
            int tenth = Math.min(9, (int) ((s.start() - first) / span * 10));
            for (Turn t : s.turns()) {
                work[tenth] += t.idealUncachedTokens();
                total += t.idealUncachedTokens();
            }
        }
        return total == 0 ? 1 : java.util.Arrays.stream(work).max().orElse(0) * 10 / total;
    }

    private double mean(java.util.function.ToIntFunction<Turn> field) {
        return sessions.stream()
                .flatMap(s -> s.turns().stream())
                .mapToInt(field)
                .average()
                .orElse(0);
    }
}
