/**
 * The grid: an immutable snapshot of sites, backend clusters and the models they serve, swapped whole when the
 * serving config changes.
 */
@NullMarked
package grid.gateway.routing.grid;

import org.jspecify.annotations.NullMarked;
