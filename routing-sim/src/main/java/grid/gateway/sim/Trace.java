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

    private double mean(java.util.function.ToIntFunction<Turn> field) {
        return sessions.stream()
                .flatMap(s -> s.turns().stream())
                .mapToInt(field)
                .average()
                .orElse(0);
    }
}
