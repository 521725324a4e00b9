/**
 * Tracing (docs/operations.md, "Tracing"): W3C Trace Context carried from the client to the engine, and, with an OTLP
 * endpoint configured, a server span per proxied request (the routing decision as attributes) and a client span per
 * upstream try, exported by the OpenTelemetry SDK. The proxy reaches it through {@link
 * grid.gateway.app.trace.Tracing#begin} and the {@link grid.gateway.app.trace.RequestTrace} it returns.
 */
@NullMarked
package grid.gateway.app.trace;

import org.jspecify.annotations.NullMarked;
