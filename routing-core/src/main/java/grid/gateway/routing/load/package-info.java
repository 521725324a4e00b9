/**
 * Load and admission (docs/design.md §6): the queue depth read from each backend cluster's Prometheus metrics, its windowed
 * worst value, outlier ejection after consecutive connect failures, and the admission decision that combines them
 * with a cluster's {@code draining} flag and {@code max_queue_depth}. Nothing here reads a clock: every time is a
 * reading of the injected {@link grid.gateway.routing.time.MonotonicClock} passed in by the caller and compared only
 * as a difference, and nothing here performs I/O (the scraper that fetches the metrics lives in the app module).
 */
@NullMarked
package grid.gateway.routing.load;

import org.jspecify.annotations.NullMarked;
