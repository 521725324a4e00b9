package grid.gateway.routing.prefix;

import static java.util.Objects.requireNonNull;

/**
 * What the prefix memory believed of one cluster when a request was routed there ({@code learn_from_usage}): when
 * each of the request's leading blocks was last confirmed at that cluster, TTL-unexpired ones only and the usage
 * horizon ignored. The answer's reported cached tokens are checked against it ({@link UsageHorizon}); it must be
 * taken at routing time, because the answer's own confirmation refreshes those blocks before its usage arrives.
 *
 * <p>Thread-safe (effectively immutable: the array is never written after construction and never handed out).
 *
 * @param routedAtNanos when the request was routed, a monotonic clock reading
 * @param confirmedAt when each leading block was confirmed, in block order; empty when the memory held none
 */
public record RunEvidence(long routedAtNanos, long[] confirmedAt) {
    /** No evidence: usage learning is off, or the request has no keys. */
    public static final RunEvidence NONE = new RunEvidence(0, new long[0]);

    public RunEvidence {
        requireNonNull(confirmedAt, "confirmedAt");
    }

    /** Leading blocks the memory held, unexpired. */
    public int blocks() {
        return confirmedAt.length;
    }

    /** How long before the routing block {@code index} had been confirmed. */
    public long ageNanos(int index) {
        return routedAtNanos - confirmedAt[index];
    }
}
