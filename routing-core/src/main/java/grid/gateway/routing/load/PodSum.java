package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.Function;

/**
 * Sums one scrape round of a backend cluster's pods into the one {@link EngineSample} the router takes for the
 * cluster: the queue depth is the sum over the pods that answered, and so is every gauge, while the counters are
 * summed as increments per pod, so that a pod that restarts, fails a round or leaves never makes the cluster's
 * counter go down.
 *
 * <pre>
 *   waiting, running    Σ over the pods that answered with the series          (empty: none did)
 *   counters            cluster total += Σ per pod (now − its previous value)    a pod's first answer adds 0,
 *                                                                               and so does one that went down
 *                                                                               (restarted); a pod that failed
 *                                                                               adds its catch-up at its next answer
 *   cacheTokens         Σ over the cluster's pods of each one's latest report    configuration, not load: a pod
 *                                                                               that fails a round still has it
 * </pre>
 *
 * <p>Why increments and not a sum of the pods' counters: a pod left out of one round, or one that restarted, would
 * take its whole count out of the sum and put it back later, and calibration would read the jump as a burst of
 * finished requests (or a reset of the cluster). A restarted pod's counts up to its first answer are not known to
 * belong to the interval since its previous answer, so they are left out, as a one-pod cluster's restart is
 * (its first sample after a restart gives no observation).
 *
 * <p>Not thread-safe: a cluster has one scrape at a time, and each cluster has its own sum.
 */
public final class PodSum {
    private final Map<String, EngineSample> latest = new HashMap<>();
    private double promptTokens;
    private double cachedTokens;
    private double prefillSeconds;
    private double runningSeconds;
    private double runningRequests;
    private double prefillRequests;
    private double successRequests;

    /** A sum with no pod seen yet. */
    public PodSum() {}

    /**
     * The cluster's sample for one round.
     *
     * @param answered the sample of each pod that answered, by pod (its address or URL)
     * @param pods every pod of the cluster now; pods not among them are forgotten
     * @param atNanos when the round ended, a monotonic clock reading
     */
    public EngineSample round(Map<String, EngineSample> answered, Set<String> pods, long atNanos) {
        requireNonNull(answered, "answered");
        requireNonNull(pods, "pods");
        OptionalDouble prompt = increase(answered, EngineSample::promptTokens);
        OptionalDouble cached = increase(answered, EngineSample::cachedTokens);
        OptionalDouble prefill = increase(answered, EngineSample::prefillSeconds);
        OptionalDouble runningTime = increase(answered, EngineSample::runningSeconds);
        OptionalDouble finished = increase(answered, EngineSample::runningRequests);
        OptionalDouble prefilled = increase(answered, EngineSample::prefillRequests);
        OptionalDouble succeeded = increase(answered, EngineSample::successRequests);
        latest.putAll(answered);
        latest.keySet().retainAll(pods);
        promptTokens += prompt.orElse(0);
        cachedTokens += cached.orElse(0);
        prefillSeconds += prefill.orElse(0);
        runningSeconds += runningTime.orElse(0);
        runningRequests += finished.orElse(0);
        prefillRequests += prefilled.orElse(0);
        successRequests += succeeded.orElse(0);
        return new EngineSample(
                atNanos,
                sum(answered, EngineSample::waiting),
                sum(answered, EngineSample::running),
                total(prompt, promptTokens),
                total(cached, cachedTokens),
                total(prefill, prefillSeconds),
                total(runningTime, runningSeconds),
                total(finished, runningRequests),
                sum(latest, EngineSample::cacheTokens),
                total(prefilled, prefillRequests),
                total(succeeded, successRequests));
    }

    private static OptionalDouble total(OptionalDouble increase, double total) {
        return increase.isPresent() ? OptionalDouble.of(total) : OptionalDouble.empty();
    }

    /** Σ of {@code series} over the samples that carry it; empty when none does. */
    private static OptionalDouble sum(
            Map<String, EngineSample> samples, Function<EngineSample, OptionalDouble> series) {
        boolean any = false;
        double sum = 0;
        for (EngineSample sample : samples.values()) {
            OptionalDouble value = series.apply(sample);
            if (value.isPresent()) {
                any = true;
                sum += value.getAsDouble();
            }
        }
        return any ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }

    /** Σ over the pods that carry the counter of what it grew since their previous answer; empty when none does. */
    private OptionalDouble increase(Map<String, EngineSample> answered, Function<EngineSample, OptionalDouble> series) {
        boolean any = false;
        double increase = 0;
        for (Map.Entry<String, EngineSample> pod : answered.entrySet()) {
            OptionalDouble now = series.apply(pod.getValue());
            if (now.isEmpty()) {
                continue;
            }
            any = true;
            EngineSample before = latest.get(pod.getKey());
            OptionalDouble previous = before == null ? OptionalDouble.empty() : series.apply(before);
            if (previous.isEmpty()) {
                continue;
            }
            double grew = now.getAsDouble() - previous.getAsDouble();
            // Went down: the pod restarted; its new count is the base of its next increase.
            increase += Math.max(0, grew);
        }
        return any ? OptionalDouble.of(increase) : OptionalDouble.empty();
    }
}
