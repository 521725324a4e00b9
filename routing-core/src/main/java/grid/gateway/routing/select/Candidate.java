package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import java.util.OptionalDouble;

/**
 * An admitted cluster that serves the request's model, with its windowed worst queue depth.
 *
 * <p>Thread-safe (immutable).
 *
 * @param cluster the cluster
 * @param queueDepth its windowed worst queue depth; empty when unmeasured
 */
public record Candidate(BackendCluster cluster, OptionalDouble queueDepth) {
    public Candidate {
        requireNonNull(cluster, "cluster");
        requireNonNull(queueDepth, "queueDepth");
    }

    /** Whether a queue sample lies in the window. */
    public boolean isMeasured() {
        return queueDepth.isPresent();
    }
}
