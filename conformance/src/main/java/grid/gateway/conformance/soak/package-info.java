/**
 * The soak: a bounded run of mixed traffic with injected faults through the packaged gateway in front of simulated
 * engines, that checks at the end that every request got exactly one answer and that heap, threads, file descriptors
 * and upstream connections are back at their baseline.
 */
@NullMarked
package grid.gateway.conformance.soak;

import org.jspecify.annotations.NullMarked;
