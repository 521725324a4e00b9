package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.Function;

/**
 * Sums one scrape round of a backend cluster's pods into the one {@link EngineSample} the router takes for the
 * cluster: the queue depth is the sum over the pods that answered (and the silent ones' latest), and so is the
 * running gauge, while the counters are summed as increments per pod, so that a pod that restarts, fails a round or
 * leaves never makes the cluster's counter go down.
 *
 * <pre>
 *   waiting, running    Σ over the pods that answered with the series          (empty: none did)
 *                       + each silent pod's latest reading                      silent: failed, but not down
 *   counters            cluster total += Σ per pod (now − its last known value)  a pod's first report of a series
 *                                                                               adds 0; a pod that failed a round,
 *                                                                               or whose page lacked the series,
 *                                                                               adds its catch-up at its next report
 *   restart             any counter of a pod went down: every counter of that   the round is the pod's new base
 *                       pod adds 0 this round
 *   cacheTokens         Σ over the cluster's pods of each one's latest report    configuration, not load: a pod
 *                                                                               that fails a round still has it
 * </pre>
 *
 * <p>A pod that failed its scrape without being down (it was reached and gave no page in time, answered 5xx or a cut
 * page, or was not tried) is silent: its load is unknown, not gone, and the most common cause is the load itself (an
 * engine's {@code /metrics} stalls under a burst). Left out of the sum it would read as an idle pod and draw more of
 * the traffic that silenced it, so it counts with its latest reading until it answers again, is down (the scrape
 * could not connect: nothing runs there, and its queue went with it) or leaves the cluster.
 *
 * <p>Why increments and not a sum of the pods' counters: a pod left out of one round, or one that restarted, would
 * take its whole count out of the sum and put it back later, and calibration would read the jump as a burst of
 * finished requests (or a reset of the cluster). A restarted pod's counts up to its first answer are not known to
 * belong to the interval since its previous answer, so they are left out, as a one-pod cluster's restart is
 * (its first sample after a restart gives no observation). A restart is the pod's, not one series': a counter that
 * was small before it (prefix-cache hits of a pod that had none) can end above its old value while the others went
 * down, and adding its growth alone would pair hits from after the restart with tokens from before.
 *
 * <p>The totals restart from 0 (every counter goes down at once, which calibration reads as a restart of the cluster)
 * rather than pass {@link #MAX_TOTAL}: past it a double no longer adds a few milliseconds of prefill exactly, and one
 * astronomical reading (a pod that reported 2^53 seconds once) would leave every later increment rounded away.
 *
 * <p>Not thread-safe: a cluster has one scrape at a time, and each cluster has its own sum.
 */
public final class PodSum {
    /** The largest total kept: 2^40, where a double still adds increments of 2^-12 exactly. */
    static final double MAX_TOTAL = 0x1p40;

    /** The counter series, in the order of {@link #counters} and {@link #sample}. */
    private static final List<Function<EngineSample, OptionalDouble>> COUNTERS = List.of(
            EngineSample::promptTokens,
            EngineSample::cachedTokens,
            EngineSample::prefillSeconds,
            EngineSample::runningSeconds,
            EngineSample::runningRequests,
            EngineSample::prefillRequests,
            EngineSample::successRequests);

    /** Each pod's last known value of each counter (NaN: never reported since its latest restart). */
    private final Map<String, double[]> known = new HashMap<>();
    /** Each pod's latest page, whose depth and running count stand for it while it is silent. */
    private final Map<String, EngineSample> lastPage = new HashMap<>();
    /** Each pod's latest report of its cache. */
    private final Map<String, Double> cache = new HashMap<>();

    private final double[] totals = new double[COUNTERS.size()];

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
        return round(answered, Set.of(), pods, atNanos);
    }

    /**
     * The cluster's sample for one round in which the pods {@code silent} failed without being down: each counts with
     * its latest reading of the queue depth and the running sequences; a pod neither answered nor silent is down, and
     * its reading is forgotten.
     *
     * @param answered the sample of each pod that answered, by pod (its address or URL)
     * @param silent the pods that failed their scrape but are not known to be down
     * @param pods every pod of the cluster now; pods not among them are forgotten
     * @param atNanos when the round ended, a monotonic clock reading
     */
    public EngineSample round(Map<String, EngineSample> answered, Set<String> silent, Set<String> pods, long atNanos) {
        requireNonNull(answered, "answered");
        requireNonNull(silent, "silent");
        requireNonNull(pods, "pods");
        lastPage.keySet().removeIf(pod -> !answered.containsKey(pod) && !silent.contains(pod));
        lastPage.putAll(answered);
        lastPage.keySet().retainAll(pods);
        double[] increase = new double[COUNTERS.size()];
        boolean[] reported = new boolean[COUNTERS.size()];
        for (Map.Entry<String, EngineSample> pod : answered.entrySet()) {
            double[] now = counters(pod.getValue());
            double[] before = known.get(pod.getKey());
            boolean restarted = before != null && wentDown(before, now);
            double[] kept = before == null || restarted ? now.clone() : before;
            for (int i = 0; i < now.length; i++) {
                if (Double.isNaN(now[i])) {
                    continue;
                }
                reported[i] = true;
                if (!Double.isNaN(kept[i])) {
                    increase[i] += now[i] - kept[i];
                }
                kept[i] = now[i];
            }
            known.put(pod.getKey(), kept);
            pod.getValue().cacheTokens().ifPresent(tokens -> cache.put(pod.getKey(), tokens));
        }
        known.keySet().retainAll(pods);
        cache.keySet().retainAll(pods);
        add(increase);
        return sample(answered, reported, atNanos);
    }

    /** Σ of the gauge {@code series} over the pods that answered and the silent pods' latest readings. */
    private OptionalDouble gauge(Map<String, EngineSample> answered, Function<EngineSample, OptionalDouble> series) {
        OptionalDouble fresh = sum(answered, series);
        if (fresh.isEmpty()) {
            return fresh;
        }
        double held = 0;
        for (Map.Entry<String, EngineSample> pod : lastPage.entrySet()) {
            if (!answered.containsKey(pod.getKey())) {
                held += series.apply(pod.getValue()).orElse(0);
            }
        }
        return OptionalDouble.of(fresh.getAsDouble() + held);
    }

    /** Adds the round's increases, or restarts every total from 0 when one would pass {@link #MAX_TOTAL}. */
    private void add(double[] increase) {
        for (int i = 0; i < totals.length; i++) {
            if (!(totals[i] + increase[i] <= MAX_TOTAL)) {
                Arrays.fill(totals, 0);
                return;
            }
        }
        for (int i = 0; i < totals.length; i++) {
            totals[i] += increase[i];
        }
    }

    private EngineSample sample(Map<String, EngineSample> answered, boolean[] reported, long atNanos) {
        OptionalDouble[] t = new OptionalDouble[totals.length];
        for (int i = 0; i < t.length; i++) {
            t[i] = reported[i] ? OptionalDouble.of(totals[i]) : OptionalDouble.empty();
        }
        OptionalDouble cacheTokens = cache.isEmpty()
                ? OptionalDouble.empty()
                : OptionalDouble.of(
                        cache.values().stream().mapToDouble(Double::doubleValue).sum());
        return new EngineSample(
                atNanos,
                gauge(answered, EngineSample::waiting),
                gauge(answered, EngineSample::running),
                t[0],
                t[1],
                t[2],
                t[3],
                t[4],
                cacheTokens,
                t[5],
                t[6]);
    }

    /** The counters of {@code sample}, NaN where it lacks one. */
    private static double[] counters(EngineSample sample) {
        double[] values = new double[COUNTERS.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = COUNTERS.get(i).apply(sample).orElse(Double.NaN);
        }
        return values;
    }

    /** Whether a counter known before is lower now: the pod restarted. */
    private static boolean wentDown(double[] before, double[] now) {
        for (int i = 0; i < now.length; i++) {
            if (now[i] < before[i]) {
                return true;
            }
        }
        return false;
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
}
