/**
 * Forwarding to backend clusters over the gateway's own strict HTTP/1.1 client: pooled connections that carry one
 * answer per request or are closed, byte-exact targets, hop-by-hop headers dropped both ways, explicit mapping of
 * connect failures and timeouts, a stale connection retried once, and relaying answers back chunk by chunk or event
 * by event under idle and send deadlines, tagging ids as they stream (docs/design.md §9, §H18, §H19, §H20).
 */
@NullMarked
package grid.gateway.app.forward;

import org.jspecify.annotations.NullMarked;
