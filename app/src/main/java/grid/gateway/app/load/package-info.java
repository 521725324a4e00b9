/**
 * Load (docs/design.md §6) on the app side: the scraper that fetches each backend cluster's Prometheus metrics over HTTP and
 * feeds the routing core's {@link grid.gateway.routing.load.QueueDepthWindow}, which admission and selection read.
 */
@NullMarked
package grid.gateway.app.load;

import org.jspecify.annotations.NullMarked;
