package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.observe.ProxyEvents;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderValues;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;

/**
 * Answers, in the API's error shape, a request Helidon 4.5's HTTP/1 parser refuses itself before any routing: a
 * malformed head (a folded line, a bare LF, a control byte, a space before a colon, no or two {@code Host} fields) or
 * framing (both {@code Content-Length} and {@code Transfer-Encoding}, a coding other than {@code chunked} alone, a
 * {@code Content-Length} that is not one number), a request line or head over its limit. Helidon's own answer to these
 * is its status with an empty body, which an SDK reports as an unexplained failure; this keeps Helidon's status and
 * says what was wrong in the shape of the API the target names. The connection is closed: the bytes after a head
 * that could not be read cannot be trusted as a next request.
 *
 * <p>Thread-safe: stateless.
 */
final class ParseRefusal implements DirectHandler {
    private final EndpointTable endpoints;
    private final ProxyEvents events;

    ParseRefusal(EndpointTable endpoints, ProxyEvents events) {
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
        if (defaultStatus.code() < 400) {
            // Not a refusal: nothing of the API's to say.
            return DirectHandler.defaultHandler().handle(request, eventType, defaultStatus, headers, message);
        }
        events.refused(InboundRefusal.MALFORMED_REQUEST);
        ApiError error = switch (defaultStatus.code()) {
            case 414 -> ApiError.TARGET_TOO_LONG;
            case 501 -> ApiError.CODING_NOT_IMPLEMENTED;
            default -> ApiError.MALFORMED_REQUEST;
        };
        headers.set(HeaderValues.CONTENT_TYPE_JSON);
        return TransportResponse.builder()
                .status(defaultStatus)
                .headers(headers)
                .keepAlive(false)
                .entity(error.body(VersionRefusal.shape(endpoints, request.path())))
                .build();
    }
}
