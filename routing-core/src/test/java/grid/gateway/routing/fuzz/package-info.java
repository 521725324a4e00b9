/**
 * Fuzz targets for the two parsers that read untrusted client text in {@code routing-core}: the prompt keyer and the
 * stored-id tag parser. Each target runs its seed corpus as a plain regression test in every build, and fuzzes with
 * Jazzer when {@code JAZZER_FUZZ=1} (see docs/failure-behaviour.md, "Hostile bodies").
 */
@NullMarked
package grid.gateway.routing.fuzz;

import org.jspecify.annotations.NullMarked;
