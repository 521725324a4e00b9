package grid.gateway.app.forward;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Why a forwarding attempt got no answer the client can be given: sorted once, here, and carried by {@link Attempt}
 * and {@link RelayResult} to the proxy, the router and the {@code kind} label of {@code grid_upstream_errors_total}.
 *
 * <p>A connect timeout is a {@link #CONNECT} failure, not a {@link #TIMEOUT}: no connection was made, so nothing was
 * sent, the request may go to the next candidate, and the cluster is as unreachable as one that refused (it counts
 * toward ejection). {@link #TIMEOUT} is reserved for an engine that took the request and then stayed silent.
 *
 * <p>Stateless and thread-safe. {@link #label()} is the metric label value (a documented contract).
 */
public enum UpstreamFailure {
    /** No connection: refused, unreachable, unknown host, or not connected within the connect timeout. */
    CONNECT,
    /** Connected and sent, then no response headers within the first-byte timeout (or no first body byte within
     * the idle timeout). */
    TIMEOUT,
    /** The connection broke after the request was sent, or the answer was malformed. */
    RESET,
    /**
     * Reserved: the forwarder sorts every failure into the three above. The series is registered so that the
     * documented label set is complete from the first scrape.
     */
    OTHER;

    /** Built once, not per failed attempt. */
    private final String label = name().toLowerCase(Locale.ROOT);

    /** The metric label value: the constant's name in lower case. */
    public String label() {
        return label;
    }

    /**
     * The failure thrown while sending or waiting for response headers. A wrapped I/O failure is found in the cause
     * chain. The JDK reports a connect timeout as a {@link SocketTimeoutException} whose message names the connect
     * ("Connect timed out"): that is {@link #CONNECT} (see the class comment); every failure while connecting, the TLS
     * handshake included, is {@link #CONNECT} whatever its type, as the forwarder sorts it by when it happened.
     */
    static UpstreamFailure of(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException
                    || cause instanceof NoRouteToHostException
                    || cause instanceof UnknownHostException) {
                return CONNECT;
            }
            if (cause instanceof SocketTimeoutException timeout) {
                String message = String.valueOf(timeout.getMessage()).toLowerCase(Locale.ROOT);
                return message.contains("connect") ? CONNECT : TIMEOUT;
            }
        }
        return RESET;
    }
}
