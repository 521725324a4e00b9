package grid.gateway.routing.load;

import java.util.OptionalInt;

/**
 * What the load gate and the prefix memory use for one backend cluster: measured where {@code auto} asks for it and
 * the cluster has been measured, else the configured numbers.
 *
 * <p>Thread-safe (immutable).
 *
 * @param prefillTokensPerSecond the cluster's prefill rate, uncached prompt tokens a second
 * @param queuedRequestSeconds what one queued request costs there, seconds
 * @param capacity the prefix-memory capacity its engines justify ({@code capacity: auto}); empty when unmeasured
 * @param measuredPrefill whether the prefill rate is measured (false: configured)
 * @param measuredQueued whether the queued-request cost is measured (false: configured)
 */
public record ClusterPrices(
        double prefillTokensPerSecond,
        double queuedRequestSeconds,
        OptionalInt capacity,
        boolean measuredPrefill,
        boolean measuredQueued) {}
