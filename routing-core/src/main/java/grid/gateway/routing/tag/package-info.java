/**
 * Stored-id tags (docs/design.md §5): {@code resp_<site>.<cluster>.<mac>.<id>} and {@code conv_<site>.<cluster>.<mac>.<id>},
 * their cluster digest and their HMAC key ring. Nothing here knows the grid: resolving a tag to a backend cluster
 * happens in {@code grid.gateway.routing}.
 */
@NullMarked
package grid.gateway.routing.tag;

import org.jspecify.annotations.NullMarked;
