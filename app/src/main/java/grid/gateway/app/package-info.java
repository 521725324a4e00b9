/**
 * The grid gateway's Helidon SE application: the command-line entry point and the composition root that builds the client and admin listeners from the YAML config and wires routing-core into them.
 */
@NullMarked
package grid.gateway.app;

import org.jspecify.annotations.NullMarked;
