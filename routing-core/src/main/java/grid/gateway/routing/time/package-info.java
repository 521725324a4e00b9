/**
 * Injected time and randomness: the only places allowed to read {@code System.nanoTime} or
 * {@code ThreadLocalRandom}, so that every other component runs on a clock and a random source a test controls.
 */
@NullMarked
package grid.gateway.routing.time;

import org.jspecify.annotations.NullMarked;
