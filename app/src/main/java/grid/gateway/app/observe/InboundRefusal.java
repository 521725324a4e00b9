package grid.gateway.app.observe;

import java.util.Locale;

/**
 * Why the gateway refused or cut a client's request before forwarding it, for {@code grid_requests_refused_total}.
 *
 * <p>Stateless and thread-safe. {@link #label()} is the metric label value.
 */
public enum InboundRefusal {
    /** The body was larger than {@code max_body_bytes}: 413. */
    BODY_TOO_LARGE,
    /** The body did not arrive within {@code body_timeout_ms}: 408 and the connection closed. */
    BODY_TIMEOUT,
    /** The headers did not arrive within {@code header_timeout_ms} of the request line: the connection closed. */
    HEADER_TIMEOUT,
    /** The body's framing broke (a bad chunk size, a chunk extension) or the client left mid-body: 400, closed. */
    BODY_UNREADABLE,
    /** The process-wide budget of body bytes in memory ({@code max_inflight_body_bytes}) was spent: 503, closed. */
    BODY_BUDGET,
    /** A body on a path that can name a stored id was not valid JSON to the strict scanner: 400. */
    BODY_UNSCANNABLE,
    /** A path this role does not serve, or an unknown sub-path of {@code /v1/responses/} or conversations: 404. */
    PATH_NOT_FOUND,
    /** A method the API path does not define: 405. */
    METHOD_NOT_ALLOWED,
    /** A method not sent in its case-sensitive name ({@code post}, not {@code POST}): 501, never folded. */
    METHOD_NOT_IMPLEMENTED,
    /** A header with an empty name, or a value with a byte outside US-ASCII (obs-text) or a control: 400. */
    INVALID_HEADER,
    /** An HTTP/1.0 request: 505 (the gateway speaks HTTP/1.1 only), closed. */
    HTTP_VERSION,
    /** A head or framing Helidon's parser refuses before routing (400, 414 or 501), closed. */
    MALFORMED_REQUEST,
    /** A body naming a stored id sent to a provider-role gateway, which serves no stored state: 404. */
    STORED_ID_VIA_PROVIDER;

    /** The label value used in metrics: the constant's name in lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
