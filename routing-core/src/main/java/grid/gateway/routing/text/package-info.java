/**
 * Byte-level JSON text shared by every reader of untrusted JSON in the project: the one tokenizer
 * ({@link grid.gateway.routing.text.JsonTokenizer}, reporting to a {@link grid.gateway.routing.text.JsonListener}),
 * searching a string's bytes eight at a time, and checking UTF-8 sequences strictly.
 */
@NullMarked
package grid.gateway.routing.text;

import org.jspecify.annotations.NullMarked;
