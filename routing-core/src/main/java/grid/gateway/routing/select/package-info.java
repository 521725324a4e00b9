/**
 * Selection (docs/design.md §6; the seed's "How it chooses" and "When load wins"): orders the admitted candidates by windowed
 * worst queue depth, then applies exploration, the sticky rule and the load gate.
 */
@NullMarked
package grid.gateway.routing.select;

import org.jspecify.annotations.NullMarked;
