/**
 * The client-facing HTTP side: which paths a role serves, the bounded request body, error answers in each API's
 * own shape, and the handler that runs one request end to end (docs/design.md §3, §8, §9).
 */
@NullMarked
package grid.gateway.app.http;

import org.jspecify.annotations.NullMarked;
