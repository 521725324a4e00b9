package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Decides whether a backend cluster admits a request (docs/design.md §6). A cluster admits unless
 *
 * <ul>
 *   <li>it is marked {@code draining}, or
 *   <li>it has a {@code max_queue_depth} and its windowed worst queue depth is at or above it (an unmeasured cluster
 *       is not refused on this ground), or
 *   <li>it is ejected after consecutive connect failures ({@link OutlierEjector}).
 * </ul>
 *
 * <p>Thread-safe: it holds no state of its own and reads the window and the ejector, which are thread-safe.
 */
public final class Admission {
    private final QueueDepthWindow window;
    private final OutlierEjector ejector;

    /** An admission that reads queue depths from {@code window} and ejections from {@code ejector}. */
    public Admission(QueueDepthWindow window, OutlierEjector ejector) {
        this.window = requireNonNull(window, "window");
        this.ejector = requireNonNull(ejector, "ejector");
    }

    /** Why a cluster admits no request; the label is what {@code /route/explain} shows. */
    public enum Refusal {
        /** Marked {@code draining} in the config. */
        DRAINING,
        /** Its windowed worst queue depth is at or above its {@code max_queue_depth}. */
        QUEUE_FULL,
        /** Ejected after consecutive connect failures. */
        EJECTED;

        /** The label: the constant's name in lower case. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Whether {@code cluster} admits a request at {@code nowNanos}. */
    public boolean admits(BackendCluster cluster, long nowNanos) {
        return refusal(cluster, nowNanos).isEmpty();
    }

    /** Why {@code cluster} admits no request at {@code nowNanos}; empty when it admits one. Reads only. */
    public Optional<Refusal> refusal(BackendCluster cluster, long nowNanos) {
        requireNonNull(cluster, "cluster");
        if (cluster.draining()) {
            return Optional.of(Refusal.DRAINING);
        }
        if (isQueueFull(cluster, nowNanos)) {
            return Optional.of(Refusal.QUEUE_FULL);
        }
        return ejector.isEjected(cluster.id(), nowNanos) ? Optional.of(Refusal.EJECTED) : Optional.empty();
    }

    /** The windowed worst queue depth of {@code cluster} at {@code nowNanos}; empty when it is unmeasured. */
    public OptionalDouble worstQueueDepth(ClusterId cluster, long nowNanos) {
        return window.worst(cluster, nowNanos);
    }

    private boolean isQueueFull(BackendCluster cluster, long nowNanos) {
        OptionalInt max = cluster.maxQueueDepth();
        if (max.isEmpty()) {
            return false;
        }
        OptionalDouble worst = window.worst(cluster.id(), nowNanos);
        return worst.isPresent() && worst.getAsDouble() >= max.getAsInt();
    }
}
