package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.endpoint.ErrorShape;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.observe.ProxyEvents;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderValues;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;

/**
 * Refuses an HTTP/1.0 request with 505 in the API's error shape, saying what to send instead, and closes the
 * connection. Helidon 4.5's HTTP/1 parser takes HTTP/1.1 only and answers an HTTP/1.0 request line itself, before any
 * routing, with an empty 505; this is its direct handler for that event.
 *
 * <p>Why refused rather than served: every streamed answer (server-sent events) is relayed with chunked transfer
 * coding, which HTTP/1.0 does not have (a 1.0 client would need each stream delimited by closing the connection),
 * and HTTP/1.0's keep-alive is another protocol; no OpenAI or Anthropic SDK sends HTTP/1.0. A proxy in front must
 * speak HTTP/1.1 to the gateway: nginx's {@code proxy_http_version} defaults to 1.0, so set
 * {@code proxy_http_version 1.1;} (which upstream keep-alive needs anyway).
 *
 * <p>Thread-safe: stateless.
 */
final class VersionRefusal implements DirectHandler {
    private final EndpointTable endpoints;
    private final ProxyEvents events;

    VersionRefusal(EndpointTable endpoints, ProxyEvents events) {
        this.endpoints = requireNonNull(endpoints, "endpoints");
        this.events = requireNonNull(events, "events");
    }

    @Override
    public TransportResponse handle(
            TransportRequest request,
            EventType eventType,
            Status defaultStatus,
            ServerResponseHeaders headers,
            String message) {
        if (eventType != EventType.HTTP_VERSION_NOT_SUPPORTED) {
            return DirectHandler.defaultHandler().handle(request, eventType, defaultStatus, headers, message);
        }
        events.refused(InboundRefusal.HTTP_VERSION);
        headers.set(HeaderValues.CONTENT_TYPE_JSON);
        return TransportResponse.builder()
                .status(Status.HTTP_VERSION_NOT_SUPPORTED_505)
                .headers(headers)
                .keepAlive(false)
                .entity(ApiError.HTTP_VERSION.body(shape(endpoints, request.path())))
                .build();
    }

    /** The error shape of the API {@code target} names; OpenAI's for anything the table cannot classify. */
    static ErrorShape shape(EndpointTable endpoints, String target) {
        int query = target.indexOf('?');
        try {
            return endpoints
                    .classify(query < 0 ? target : target.substring(0, query))
                    .endpoint()
                    .errors();
        } catch (RuntimeException unclassifiable) {
            return ErrorShape.OPENAI;
        }
    }
}
