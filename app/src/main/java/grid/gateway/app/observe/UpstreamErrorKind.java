package grid.gateway.app.observe;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Why a forwarding attempt got no complete answer: the {@code kind} label of {@code grid_upstream_errors_total}.
 *
 * <p>Stateless and thread-safe. {@link #label()} is the metric label value.
 */
public enum UpstreamErrorKind {
    /** No connection: refused, unreachable, unknown host. Counts toward outlier ejection. */
    CONNECT,
    /** The connect, first-byte or idle timeout expired. */
    TIMEOUT,
    /** The connection broke: reset by the peer, or closed before the answer ended. */
    RESET,
    /** Anything else (a malformed answer, an unexpected exception). */
    OTHER;

    /** The metric label value: the constant's name in lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The kind of a failure thrown by the WebClient. Helidon wraps I/O failures in {@code UncheckedIOException}, so
     * the cause chain is searched, innermost cause last. A connect timeout is a {@link SocketTimeoutException}, so it
     * is a {@link #TIMEOUT} here; a caller that knows the failure happened while connecting passes {@link #CONNECT}
     * directly.
     */
    public static UpstreamErrorKind of(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t instanceof ConnectException
                    || t instanceof NoRouteToHostException
                    || t instanceof UnknownHostException) {
                return CONNECT;
            }
            if (t instanceof SocketTimeoutException) {
                return TIMEOUT;
            }
            if (t instanceof SocketException || t instanceof EOFException) {
                return RESET;
            }
        }
        return OTHER;
    }
}
