package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The windowed worst queue depth of each backend cluster (docs/design.md §6, {@code load.window_secs}).
 *
 * <pre>
 * Rule:      worst(c, now) = max { s.depth : s a sample of c, now - s.atNanos &lt;= window }
 *            and c is unmeasured when that set is empty.
 * Boundary:  inclusive. A sample taken at t counts through t + window and is gone at t + window + 1 ns.
 * </pre>
 *
 * <p>Algorithm: a sliding-window maximum over a monotone queue. A sample is kept only while no later sample of its
 * cluster is at least as deep, since a later sample stays in the window longer and already answers for it. The
 * kept samples are therefore in time order with strictly decreasing depth: the first one still in the window is the
 * worst, and the ones before it have aged out. A cluster never keeps more samples than were taken within one window
 * (for non-negative integer depths, no more than its worst depth plus one), so a record, which copies them, and a
 * read, which steps over the aged-out ones, touch a handful of samples.
 *
 * <p>Memory: aged-out samples are discarded when a sample is recorded (relative to that sample's time) and when a
 * read finds them (relative to the reader's {@code nowNanos}). {@link #retain} drops clusters that left the grid.
 *
 * <p>Thread-safe, and lock-free:
 *
 * <pre>
 *   scraper (one writer per cluster)         requests (any number of readers)
 *     record(c, s)                              worst(c, now)
 *       ref.updateAndGet(t -&gt; t.with(s))          t = ref.get()     no lock, no wait
 *                  \                               first in window = the answer
 *                   \--&gt; AtomicReference&lt;Trail&gt; &lt;-- compareAndSet(t, t.from(first)) when samples aged out
 *                        (immutable array)          (losing the race only means another thread updated first)
 * </pre>
 *
 * <p>A reader racing another reader that passes a later {@code nowNanos} may find the samples that aged out for that
 * later time already gone: its answer is then the one for a moment a little later than it asked, never a sample
 * outside every window. Samples of one cluster are expected in time order, as one scraper on a monotonic clock takes
 * them; a sample taken before the newest one already recorded for its cluster is ignored.
 */
public final class QueueDepthWindow {
    private final ConcurrentMap<ClusterId, AtomicReference<Trail>> trails = new ConcurrentHashMap<>();
    private volatile long windowNanos;

    /** A window of {@code window} ({@code load.window_secs}); refuses a window that is not positive. */
    public QueueDepthWindow(Duration window) {
        this.windowNanos = toWindowNanos(window);
    }

    /** Adds a scrape's queue depth for {@code cluster}, discarding the cluster's samples that it ages out. */
    public void record(ClusterId cluster, QueueSample sample) {
        requireNonNull(cluster, "cluster");
        requireNonNull(sample, "sample");
        long window = windowNanos;
        AtomicReference<Trail> trail = trails.get(cluster);
        if (trail == null) {
            trail = trails.computeIfAbsent(cluster, id -> new AtomicReference<>(Trail.EMPTY));
        }
        trail.updateAndGet(kept -> kept.with(sample, window));
    }

    /**
     * The largest depth among {@code cluster}'s samples taken within the window ending at {@code nowNanos}
     * (inclusive); empty when the cluster is unmeasured.
     */
    public OptionalDouble worst(ClusterId cluster, long nowNanos) {
        requireNonNull(cluster, "cluster");
        AtomicReference<Trail> ref = trails.get(cluster);
        if (ref == null) {
            return OptionalDouble.empty();
        }
        Trail trail = ref.get();
        int first = trail.firstWithin(nowNanos, windowNanos);
        if (first > 0) {
            ref.compareAndSet(trail, trail.from(first));
        }
        return trail.depthAt(first);
    }

    /**
     * Sets the window for later reads and records. Shrinking it drops, at the next read or record, samples that the
     * shorter window no longer holds; growing it cannot bring back samples already discarded.
     */
    public void reconfigure(Duration window) {
        this.windowNanos = toWindowNanos(window);
    }

    /** Forgets every cluster not in {@code live}, typically the clusters of the grid after a reload. */
    public void retain(Set<ClusterId> live) {
        requireNonNull(live, "live");
        trails.keySet().retainAll(live);
    }

    /** The window in nanoseconds. */
    long windowNanos() {
        return windowNanos;
    }

    /** How many samples {@code cluster} keeps; for tests of the memory bound. */
    int keptSamples(ClusterId cluster) {
        AtomicReference<Trail> ref = trails.get(cluster);
        return ref == null ? 0 : ref.get().samples.length;
    }

    /** How many clusters have an entry; for tests of {@link #retain}. */
    int trackedClusters() {
        return trails.size();
    }

    private static long toWindowNanos(Duration window) {
        requireNonNull(window, "window");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window: " + window + " (expected: > 0)");
        }
        try {
            return window.toNanos();
        } catch (ArithmeticException tooLong) {
            throw new IllegalArgumentException(
                    "window: " + window + " (expected: at most " + Long.MAX_VALUE + " ns)", tooLong);
        }
    }

    /**
     * One cluster's kept samples: in time order, depths strictly decreasing. Immutable; the array is never shared
     * with a caller.
     */
    private static final class Trail {
        static final Trail EMPTY = new Trail(new QueueSample[0]);

        private final QueueSample[] samples;

        private Trail(QueueSample[] samples) {
            this.samples = samples;
        }

        /** This trail with {@code sample} appended, the samples it outdoes and the ones it ages out removed. */
        Trail with(QueueSample sample, long windowNanos) {
            int count = samples.length;
            if (count > 0 && sample.atNanos() - samples[count - 1].atNanos() < 0) {
                return this;
            }
            int first = firstWithin(sample.atNanos(), windowNanos);
            int last = count;
            while (last > first && samples[last - 1].depth() <= sample.depth()) {
                last--;
            }
            QueueSample[] kept = Arrays.copyOfRange(samples, first, last + 1);
            kept[last - first] = sample;
            return new Trail(kept);
        }

        /** The index of the first sample with {@code nowNanos - atNanos <= windowNanos}, or the length if none. */
        int firstWithin(long nowNanos, long windowNanos) {
            int first = 0;
            while (first < samples.length && nowNanos - samples[first].atNanos() > windowNanos) {
                first++;
            }
            return first;
        }

        /** This trail without its first {@code first} samples. */
        Trail from(int first) {
            return first == samples.length ? EMPTY : new Trail(Arrays.copyOfRange(samples, first, samples.length));
        }

        OptionalDouble depthAt(int index) {
            return index < samples.length ? OptionalDouble.of(samples[index].depth()) : OptionalDouble.empty();
        }
    }
}
