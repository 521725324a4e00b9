/**
 * Test fixtures shared by every package's tests (and, through the test-jar, by the other modules): seeded property
 * trials.
 */
@NullMarked
package grid.gateway.routing.testing;

import org.jspecify.annotations.NullMarked;
