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
    HEADER_TIMEOUT;

    /** The label value used in metrics: the constant's name in lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
