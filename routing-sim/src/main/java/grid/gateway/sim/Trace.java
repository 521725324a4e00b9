package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A workload's sessions, generated once from a seed and replayed by every policy at every load.
 *
 * <p>Thread-safe (immutable).
 *
 * @param workload what it models
 * @param sessions its sessions, by start
 */
public record Trace(Workload workload, List<Session> sessions) {
    public Trace {
        requireNonNull(workload, "workload");
        sessions = List.copyOf(sessions);
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
