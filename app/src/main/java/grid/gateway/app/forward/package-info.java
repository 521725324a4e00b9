/**
 * Forwarding to backend clusters with the Helidon WebClient: byte-exact targets, hop-by-hop headers dropped both
 * ways, explicit mapping of connect failures and timeouts, and relaying answers back chunk by chunk or event by
 * event (docs/design.md §9).
 */
@NullMarked
package grid.gateway.app.forward;

import org.jspecify.annotations.NullMarked;
