/**
 * The prompt keyer (docs/design.md §4): turns a request body of one of the four APIs into the model, the cache_salt and up
 * to 512 chained block keys, or into a {@link grid.gateway.routing.keyer.NoKeysReason}.
 *
 * <p>A body is read in two passes over the held bytes. {@link grid.gateway.routing.keyer.BodyIndex} has the shared
 * {@link grid.gateway.routing.text.JsonTokenizer} check the whole document once (grammar, UTF-8, depth) and records
 * where the top-level members are. A dialect walker then
 * visits only the prompt-bearing members, in the canonical order tools, system, messages, and writes the canonical
 * byte stream into a {@link grid.gateway.routing.keyer.BlockChain}, which stops the walk once it holds 512 keys.
 * Nothing builds a tree of the whole document; values are located by byte offsets into the body.
 */
@NullMarked
package grid.gateway.routing.keyer;

import org.jspecify.annotations.NullMarked;
