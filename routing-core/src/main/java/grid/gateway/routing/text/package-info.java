/**
 * Byte-level text primitives shared by every JSON scanner of the project: searching a string's bytes eight at a time
 * and checking UTF-8 sequences strictly.
 */
@NullMarked
package grid.gateway.routing.text;

import org.jspecify.annotations.NullMarked;
