/**
 * Prefix memory (docs/design.md §6; the seed's "What it remembers"): per backend cluster, which block keys this replica sent
 * there and saw confirmed, in least-recently-confirmed order, each with its own deadline.
 */
@NullMarked
package grid.gateway.routing.prefix;

import org.jspecify.annotations.NullMarked;
