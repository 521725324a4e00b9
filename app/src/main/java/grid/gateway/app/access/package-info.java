/**
 * The access log and request ids: one record per client request, filled in where decisions happen and written as
 * one JSON line when the request ends (docs/operations.md, "Access log and request ids").
 */
@NullMarked
package grid.gateway.app.access;

import org.jspecify.annotations.NullMarked;
