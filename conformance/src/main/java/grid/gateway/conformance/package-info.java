/**
 * Conformance suite of the grid gateway: the demo grid and the soak run. The engine simulator they start lives in
 * module engine-sim (package {@code grid.gateway.enginesim}); the scenario loader and runner that replay spec
 * behaviours against the gateway are this module's tests.
 */
@NullMarked
package grid.gateway.conformance;

import org.jspecify.annotations.NullMarked;
