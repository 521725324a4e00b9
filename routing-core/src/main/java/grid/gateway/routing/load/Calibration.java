package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@code auto} values of every backend cluster ({@link ClusterCalibration}), and the prices in force for each:
 * measured where the settings say {@code auto} and the cluster is measured, else configured.
 *
 * <p>Thread-safe: each cluster's estimator is updated under its own lock by the one scraper of that cluster, and
 * what requests read is an immutable {@link ClusterPrices} published through a concurrent map.
 */
public final class Calibration {
    private final ConcurrentMap<ClusterId, ClusterCalibration> estimators = new ConcurrentHashMap<>();
    private final ConcurrentMap<ClusterId, Measured> measured = new ConcurrentHashMap<>();

    /** What one cluster's estimator says now. */
    private record Measured(
            OptionalDouble prefill,
            OptionalDouble slotSeconds,
            double slotsSeen,
            OptionalInt capacity,
            Optional<Occupancy> occupancy) {
        /** The cost of a queued request: the slot time over the operator's slots, else over the most seen running. */
        OptionalDouble queued(OptionalInt maxRunning) {
            double slots = maxRunning.isPresent() ? maxRunning.getAsInt() : slotsSeen;
            return slotSeconds.isEmpty() || slots < 1
                    ? OptionalDouble.empty()
                    : OptionalDouble.of(slotSeconds.getAsDouble() / slots);
        }
    }

    /** An empty calibration: every cluster unmeasured. */
    public Calibration() {}

    /** Takes one scrape of {@code cluster}. */
    public void observe(ClusterId cluster, EngineSample sample) {
        requireNonNull(cluster, "cluster");
        requireNonNull(sample, "sample");
        ClusterCalibration estimator = estimators.computeIfAbsent(cluster, id -> new ClusterCalibration());
        synchronized (estimator) {
            estimator.observe(sample);
            measured.put(
                    cluster,
                    new Measured(
                            estimator.prefillTokensPerSecond(),
                            estimator.slotSeconds(),
                            estimator.slotsSeen(),
                            estimator.capacity(),
                            estimator.occupancy()));
        }
    }

    /** The prices in force for {@code cluster} under {@code settings}, its slots unknown unless its engines show them. */
    public ClusterPrices prices(ClusterId cluster, PrefixAffinitySettings settings) {
        return prices(cluster, settings, OptionalInt.empty());
    }

    /**
     * The prices in force for {@code cluster} under {@code settings}; a queued request's cost divides the slot time by
     * {@code maxRunning} where the operator set it.
     */
    public ClusterPrices prices(ClusterId cluster, PrefixAffinitySettings settings, OptionalInt maxRunning) {
        PrefixAffinitySettings.Calibrated auto = settings.auto();
        Measured m = auto.any() ? measured.get(cluster) : null;
        OptionalDouble prefill = m == null ? OptionalDouble.empty() : m.prefill();
        OptionalDouble queued =
                m != null && auto.queuedRequestSeconds() ? m.queued(maxRunning) : OptionalDouble.empty();
        boolean prefillMeasured = auto.prefillTokensPerSecond() && prefill.isPresent();
        boolean queuedMeasured = queued.isPresent();
        return new ClusterPrices(
                prefillMeasured ? prefill.getAsDouble() : settings.prefillTokensPerSecond(),
                queuedMeasured ? queued.getAsDouble() : settings.queuedRequestSeconds(),
                auto.capacity() && m != null ? m.capacity() : OptionalInt.empty(),
                prefillMeasured,
                queuedMeasured);
    }

    /**
     * The series {@code cluster}'s latest scrape lacked that the {@code auto} estimates of {@code settings} need, by
     * exposition name (the running gauge not when the operator set {@code max_running}).
     */
    public Set<String> missing(ClusterId cluster, PrefixAffinitySettings settings, boolean slotsConfigured) {
        PrefixAffinitySettings.Calibrated auto = settings.auto();
        ClusterCalibration estimator = estimators.get(cluster);
        if (estimator == null || !auto.any()) {
            return Set.of();
        }
        synchronized (estimator) {
            return Set.copyOf(estimator.missing(
                    auto.prefillTokensPerSecond(), auto.queuedRequestSeconds(), auto.capacity(), slotsConfigured));
        }
    }

    /** The prefix-memory capacity {@code cluster}'s engines justify, once they reported their cache. */
    public OptionalInt capacity(ClusterId cluster) {
        Measured m = measured.get(cluster);
        return m == null ? OptionalInt.empty() : m.capacity();
    }

    /** {@code cluster}'s batch at its latest scrape, once it reported {@code num_requests_running}. */
    public Optional<Occupancy> occupancy(ClusterId cluster) {
        Measured m = measured.get(cluster);
        return m == null ? Optional.empty() : m.occupancy();
    }

    /** Forgets clusters not in {@code live}. */
    public void retain(Set<ClusterId> live) {
        requireNonNull(live, "live");
        estimators.keySet().retainAll(live);
        measured.keySet().retainAll(live);
    }
}
