package grid.gateway.app.trace;

import grid.gateway.app.endpoint.RedactedPath;
import grid.gateway.routing.RouteDecision;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.select.AffinityOutcome;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The spans of one request when spans are exported: a server span that continues the client's trace (a new trace when
 * it sent none, or a malformed one) and carries the routing decision, and a client span per try upstream, its child,
 * whose context the engine gets in {@code traceparent} (with the client's {@code tracestate}).
 *
 * <p>Not thread-safe: used by the request's own thread only.
 */
final class SpanTrace implements RequestTrace {
    static final AttributeKey<String> MODEL = AttributeKey.stringKey("grid.model");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("grid.outcome");
    static final AttributeKey<String> CLUSTER = AttributeKey.stringKey("grid.cluster");
    static final AttributeKey<String> SITE = AttributeKey.stringKey("grid.site");
    static final AttributeKey<Long> RUN = AttributeKey.longKey("grid.run");
    static final AttributeKey<Long> CANDIDATES = AttributeKey.longKey("grid.candidates");
    static final AttributeKey<Boolean> PINNED = AttributeKey.booleanKey("grid.pinned");
    static final AttributeKey<Long> TRIES = AttributeKey.longKey("grid.tries");
    static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> ERROR = AttributeKey.stringKey("error.type");
    static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
    static final AttributeKey<String> RETRY_REASON = AttributeKey.stringKey("grid.retry_reason");
    /** The ends (the access line's {@code end}) that do not mark the server span as an error: the client's doing. */
    static final Set<String> CLIENTS_DOING = Set.of("client_gone", "send_timeout");

    private final Tracer tracer;
    private final Span server;
    private final ServerResponse response;
    private final String name;
    private @Nullable Span client;
    private Map<String, String> outgoing = Map.of();
    private long tries;
    private @Nullable String end;
    private boolean nothingSent;

    private SpanTrace(Tracer tracer, Span server, ServerResponse response, String name) {
        this.tracer = tracer;
        this.server = server;
        this.response = response;
        this.name = name;
    }

    /** The server span of {@code request} to {@code route}, continuing the trace its headers carry. */
    static SpanTrace begin(Tracer tracer, ServerRequest request, ServerResponse response, String route) {
        Context parent = W3CTraceContextPropagator.getInstance()
                .extract(Context.root(), request.headers(), HeaderCarrier.GETTER);
        String method = request.prologue().method().text();
        String name = method + " " + route;
        Span server = tracer.spanBuilder(name)
                .setParent(parent)
                .setSpanKind(SpanKind.SERVER)
                .setAttribute(METHOD, method)
                .setAttribute(ROUTE, route)
                .setAttribute(PINNED, false)
                .startSpan();
        return new SpanTrace(tracer, server, response, name);
    }

    @Override
    public void routing(Optional<String> model, int candidates) {
        if (!server.isRecording()) {
            return;
        }
        // The client's text: one that may be a stored id is recorded as {id}.
        model.ifPresent(m -> server.setAttribute(MODEL, RedactedPath.word(m)));
        server.setAttribute(CANDIDATES, candidates);
    }

    @Override
    public void pinned() {
        server.setAttribute(PINNED, true);
        server.setAttribute(CANDIDATES, 1L);
    }

    @Override
    public UpstreamSpan upstream(RouteDecision decision) {
        endClient();
        BackendCluster cluster = decision.cluster();
        tries++;
        String outcome = decision.outcome().map(AffinityOutcome::label).orElse("none");
        server.setAttribute(CLUSTER, cluster.id().name());
        server.setAttribute(SITE, cluster.id().site().value());
        server.setAttribute(OUTCOME, outcome);
        server.setAttribute(RUN, decision.run());
        server.setAttribute(TRIES, tries);
        Span span = tracer.spanBuilder(name)
                .setParent(Context.root().with(server))
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(CLUSTER, cluster.id().name())
                .setAttribute(SITE, cluster.id().site().value())
                .setAttribute(ADDRESS, cluster.url().getHost())
                .setAttribute(PORT, (long) port(cluster))
                .startSpan();
        client = span;
        Map<String, String> headers = new HashMap<>(4);
        W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), headers, SpanTrace::put);
        outgoing = Map.copyOf(headers);
        return new UpstreamSpan() {
            @Override
            public void answered(int status) {
                span.setAttribute(STATUS, status);
                if (status >= 500) {
                    span.setStatus(StatusCode.ERROR);
                }
            }

            @Override
            public void failed(String reason) {
                span.setAttribute(ERROR, reason);
                span.setStatus(StatusCode.ERROR);
            }

            @Override
            public void resent(String reason) {
                span.setAttribute(RESEND_COUNT, 1L);
                span.setAttribute(RETRY_REASON, reason);
            }
        };
    }

    @Override
    public boolean replaces(String header) {
        return header.equalsIgnoreCase(TraceParent.HEADER) || header.equalsIgnoreCase(TraceParent.STATE_HEADER);
    }

    @Override
    public Map<String, String> outgoing() {
        return outgoing;
    }

    @Override
    public boolean recording() {
        return true;
    }

    @Override
    public void endedAbnormally(String how, boolean none) {
        end = how;
        nothingSent = none;
    }

    /**
     * Ends the spans. The server span carries the status the client was given (none when nothing of its answer went
     * out, as its access line) and, when the request ended otherwise than answered or refused, that end as {@code
     * error.type}. A 5xx marks it as an error, and so does an end that is the gateway's or a cluster's doing
     * ({@code upstream_cut}, {@code shutdown_cut}, {@code error}); a client that leaves or stops reading does not.
     */
    @Override
    public void close() {
        endClient();
        String how = end;
        if (how != null) {
            server.setAttribute(ERROR, how);
            if (!CLIENTS_DOING.contains(how)) {
                server.setStatus(StatusCode.ERROR);
            }
        }
        if (!nothingSent) {
            int status = response.status().code();
            server.setAttribute(STATUS, status);
            if (status >= 500) {
                server.setStatus(StatusCode.ERROR);
            }
        }
        server.end();
    }

    private void endClient() {
        Span open = client;
        if (open != null) {
            open.end();
            client = null;
        }
    }

    private static void put(@Nullable Map<String, String> carrier, String name, String value) {
        if (carrier != null) {
            carrier.put(name, value);
        }
    }

    private static int port(BackendCluster cluster) {
        int port = cluster.url().getPort();
        if (port > 0) {
            return port;
        }
        return "https".equalsIgnoreCase(cluster.url().getScheme()) ? 443 : 80;
    }
}
