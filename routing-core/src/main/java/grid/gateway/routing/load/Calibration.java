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
            OptionalDouble prefill, OptionalDouble queued, OptionalInt capacity, Optional<Occupancy> occupancy) {}

    /** A cluster with no scrape yet, or with calibration off: nothing measured. */
    private static final Measured UNMEASURED =
            new Measured(OptionalDouble.empty(), OptionalDouble.empty(), OptionalInt.empty(), Optional.empty());

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
                            estimator.queuedRequestSeconds(),
                            estimator.capacity(),
                            estimator.occupancy()));
        }
    }

    /** The prices in force for {@code cluster} under {@code settings}. */
    public ClusterPrices prices(ClusterId cluster, PrefixAffinitySettings settings) {
        PrefixAffinitySettings.Calibrated auto = settings.auto();
        Measured found = auto.any() ? measured.get(cluster) : null;
        Measured m = found == null ? UNMEASURED : found;
        boolean prefillMeasured = auto.prefillTokensPerSecond() && m.prefill().isPresent();
        boolean queuedMeasured = auto.queuedRequestSeconds() && m.queued().isPresent();
        return new ClusterPrices(
                prefillMeasured ? m.prefill().getAsDouble() : settings.prefillTokensPerSecond(),
                queuedMeasured ? m.queued().getAsDouble() : settings.queuedRequestSeconds(),
                auto.capacity() ? m.capacity() : OptionalInt.empty(),
                prefillMeasured,
                queuedMeasured);
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
