package grid.gateway.app.trace;

import grid.gateway.routing.RouteDecision;
import java.util.Map;
import java.util.Optional;

/**
 * The trace of one proxied request: what it tells the engine about the trace it belongs to, and, when spans are
 * exported, its server span. Begun by {@link Tracing#begin}, told the routing decision by the proxy, and closed when
 * the request is answered.
 *
 * <p>Not thread-safe: used by the request's own thread only.
 */
public interface RequestTrace extends AutoCloseable {
    /** No trace: tracing is off and the client sent no {@code traceparent}. Adds nothing and costs nothing. */
    RequestTrace NONE = PropagatedTrace.NONE;

    /** The request was routed ({@code model} as read from the body; empty: none) among {@code candidates} clusters. */
    void routing(Optional<String> model, int candidates);

    /** The request names stored ids: it goes to their cluster only. */
    void pinned();

    /**
     * A try upstream along {@code decision}: the client span of that call (ended by the next try or by {@link
     * #close}); {@link #outgoing} is its context from now on.
     */
    UpstreamSpan upstream(RouteDecision decision);

    /** Whether the client's header {@code name} is left out of the upstream request: this trace sends its own. */
    boolean replaces(String name);

    /** The trace context headers to send upstream (name to value); empty: none added. */
    Map<String, String> outgoing();

    /** Whether spans are recorded for this request: only then is how it ended worth working out for it. */
    default boolean recording() {
        return false;
    }

    /**
     * The request ended otherwise than answered or refused: {@code end} is its access line's {@code end}
     * ({@code client_gone}, {@code upstream_cut}, {@code send_timeout}, {@code shutdown_cut}, {@code error});
     * {@code nothingSent}: none of its answer went out (the line has no status).
     */
    default void endedAbnormally(String end, boolean nothingSent) {}

    /** Ends the spans: the request has been answered (or given up). */
    @Override
    void close();
}
