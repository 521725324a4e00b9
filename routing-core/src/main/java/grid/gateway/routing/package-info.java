/**
 * The {@code grid_site_route} decision for one request (docs/design.md §3, §5, §6): pinned to the cluster a tagged id names,
 * or chosen by prefix affinity and load; and what the upstream's answer teaches the prefix memory afterwards.
 */
@NullMarked
package grid.gateway.routing;

import org.jspecify.annotations.NullMarked;
