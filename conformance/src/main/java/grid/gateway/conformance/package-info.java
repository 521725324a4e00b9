/**
 * Conformance suite of the grid gateway: the engine simulator (a fake vLLM-compatible engine) and the scenario
 * loader and runner that replay spec behaviours against the gateway arrive with the conformance issue.
 */
@NullMarked
package grid.gateway.conformance;

import org.jspecify.annotations.NullMarked;
