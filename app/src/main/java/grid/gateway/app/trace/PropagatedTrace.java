package grid.gateway.app.trace;

import grid.gateway.routing.RouteDecision;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Trace context passed on without exporting anything (no {@code tracing.otlp_endpoint}): a valid {@code traceparent}
 * reaches the engine as a child context (same trace id and flags, a new parent id: the gateway's hop) with the
 * client's {@code tracestate} unchanged; a malformed one is dropped together with its {@code tracestate}, as Trace
 * Context asks of a participant that cannot parse it; with none, nothing is added. No OpenTelemetry object is built.
 *
 * <p>Thread-safe (immutable).
 */
final class PropagatedTrace implements RequestTrace {
    /** No incoming context: the request passes unchanged. */
    static final PropagatedTrace NONE = new PropagatedTrace(null, false);
    /** A malformed incoming {@code traceparent}: it and its {@code tracestate} are not passed on. */
    static final PropagatedTrace MALFORMED = new PropagatedTrace(null, true);

    private final Map<String, String> outgoing;
    private final boolean replacesState;

    private PropagatedTrace(@Nullable TraceParent child, boolean replacesState) {
        this.outgoing = child == null ? Map.of() : Map.of(TraceParent.HEADER, child.header());
        this.replacesState = replacesState;
    }

    /** The context of the gateway's hop in {@code child}'s trace. */
    static PropagatedTrace child(TraceParent child) {
        return new PropagatedTrace(child, false);
    }

    @Override
    public void routing(Optional<String> model, int candidates) {}

    @Override
    public void pinned() {}

    @Override
    public UpstreamSpan upstream(RouteDecision decision) {
        return UpstreamSpan.NONE;
    }

    @Override
    public boolean replaces(String name) {
        if (this == NONE) {
            return false;
        }
        return name.equalsIgnoreCase(TraceParent.HEADER)
                || (replacesState && name.equalsIgnoreCase(TraceParent.STATE_HEADER));
    }

    @Override
    public Map<String, String> outgoing() {
        return outgoing;
    }

    @Override
    public void close() {}
}
