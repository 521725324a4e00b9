package grid.gateway.app.trace;

import grid.gateway.app.endpoint.RedactedPath;
import io.helidon.http.Header;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads trace context from a request's Helidon headers for the OpenTelemetry propagator. A {@code traceparent} sent
 * more than once is no context at all (Trace Context); {@code tracestate} lines are joined with commas, as HTTP
 * allows for a list header, and a {@code tracestate} that may hold a stored id ({@link RedactedPath#holdsId}) is none:
 * the exported spans would carry it, and the engine then gets none.
 *
 * <p>Stateless and thread-safe.
 */
final class HeaderCarrier {
    static final HeaderName TRACEPARENT = HeaderNames.create(TraceParent.HEADER);
    static final HeaderName TRACESTATE = HeaderNames.create(TraceParent.STATE_HEADER);

    static final TextMapGetter<Headers> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
            List<String> names = new ArrayList<>();
            for (Header header : carrier) {
                names.add(header.name());
            }
            return names;
        }

        @Override
        public @Nullable String get(@Nullable Headers carrier, String key) {
            if (carrier == null) {
                return null;
            }
            HeaderName name = HeaderNames.create(key);
            if (!carrier.contains(name)) {
                return null;
            }
            List<String> values = carrier.get(name).allValues();
            if (name.equals(TRACEPARENT)) {
                return values.size() == 1 ? values.getFirst() : null;
            }
            String state = String.join(",", values);
            // An exported span carries its parent's tracestate: one that may hold a stored id is not taken.
            return name.equals(TRACESTATE) && RedactedPath.holdsId(state) ? null : state;
        }
    };

    private HeaderCarrier() {}

    /** The one {@code traceparent} value of {@code headers}; empty when absent; a blank value when sent twice. */
    static Optional<String> traceparent(Headers headers) {
        if (!headers.contains(TRACEPARENT)) {
            return Optional.empty();
        }
        List<String> values = headers.get(TRACEPARENT).allValues();
        return Optional.of(values.size() == 1 ? values.getFirst() : "");
    }
}
