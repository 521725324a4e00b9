/**
 * Conformance suite of the grid gateway. The engine simulator, a fake vLLM-compatible engine, lives in
 * {@link grid.gateway.enginesim}; the scenario loader and runner that replay spec behaviours against the
 * gateway arrive with the rest of the conformance issue.
 */
@NullMarked
package grid.gateway.conformance;

import org.jspecify.annotations.NullMarked;
