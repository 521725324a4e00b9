/**
 * Stored-id rewriting at the gateway's edge (docs/design.md §5): tags the {@code resp_}/{@code conv_} ids in answers of
 * {@code /v1/responses…} and {@code /v1/conversations…}, plain JSON bodies and server-sent events alike, and finds
 * and strips the tagged ids a request names in its path or body. Everything here works on raw bytes and raw path
 * text, in one linear pass, changes only the id values it names, and never throws on what a client or an engine
 * sends; no HTTP type appears.
 */
@NullMarked
package grid.gateway.app.rewrite;

import org.jspecify.annotations.NullMarked;
