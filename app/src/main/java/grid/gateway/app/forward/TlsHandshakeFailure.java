package grid.gateway.app.forward;

import grid.gateway.routing.grid.ClusterId;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.net.ssl.SSLHandshakeException;

/**
 * Recognises a failed TLS handshake with a cluster (an unknown CA, a certificate for another name or out of date, a
 * client certificate refused) and logs it, once per cluster, origin and reason until a request to it succeeds again:
 * an operator reading a 502 needs the reason, which the client's answer does not carry. The origin is the host, port
 * and TLS the connection was made with, so a reload that moves the cluster or changes its {@code tls} block and still
 * fails is logged again, naming where (the operator checks the change by that line), and what is remembered of a
 * cluster the config in force no longer has is forgotten ({@link #retain}).
 *
 * <p>A handshake failure of a new connection is a connect failure: no request reached the engine, so the next
 * candidate may be tried, and it counts toward outlier ejection like a refused connection ({@code kind="connect"} in
 * {@code grid_upstream_errors_total}). One met after the engine may have read the request is not
 * ({@link UpstreamConnection#refusedByItsHandshake()}).
 *
 * <p>Thread-safe.
 */
final class TlsHandshakeFailure {
    private static final System.Logger LOG = System.getLogger("grid.gateway.tls");
    private static final int MAX_DEPTH = 16;
    /** The package of the JDK's TLS implementation. */
    private static final String JDK_TLS = "sun.security.ssl.";

    private final ConcurrentMap<ClusterId, Logged> logged = new ConcurrentHashMap<>();

    /** What was logged last of one cluster: where its handshake failed, and why. */
    private record Logged(Origin origin, String reason) {}

    /** The reason, when {@code failure} is (or was caused by) a failed handshake. */
    static Optional<String> reason(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_DEPTH; t = t.getCause(), depth++) {
            if (t instanceof SSLHandshakeException handshake) {
                return Optional.of(innermost(handshake));
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code failure} (or a cause) was met while the JDK wrote the gateway's side of a handshake message: on a
     * connection whose own handshake ended before its request went out, that is a handshake the engine began after
     * (a TLS 1.2 renegotiation, a TLS 1.3 key update it asked to be answered), so the engine was alive and reading
     * then, though the failure is only the socket's (a broken pipe: the engine closed the connection after it asked).
     * Read from the stacks of the failure and its causes, where the JDK's handshake
     * dispatch is; a JDK whose classes are named otherwise is
     * seen as no handshake, as before.
     */
    static boolean metWritingAHandshake(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_DEPTH; t = t.getCause(), depth++) {
            for (StackTraceElement frame : t.getStackTrace()) {
                String name = frame.getClassName();
                if (name.startsWith(JDK_TLS)
                        && (name.endsWith(".HandshakeContext")
                                || name.endsWith(".SSLHandshake")
                                || name.endsWith(".HandshakeOutStream"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Logs the failure of {@code cluster}'s handshake at {@code origin} at WARNING unless the same origin and reason
     * were logged since its last success.
     */
    void failed(ClusterId cluster, Origin origin, String reason) {
        Logged now = new Logged(origin, reason);
        if (!now.equals(logged.put(cluster, now))) {
            LOG.log(
                    Level.WARNING,
                    "TLS handshake with cluster " + cluster + " at " + origin.host() + ":" + origin.port()
                            + " failed: " + reason
                            + "; its requests answer 502 (check its tls block: ca_file, server_name, cert_file)");
        }
    }

    /** Forgets what was logged of every cluster but {@code clusters} (those of the config in force). */
    void retain(Set<ClusterId> clusters) {
        logged.keySet().retainAll(clusters);
    }

    /** {@code cluster} answered: its next handshake failure is logged again. */
    void succeeded(ClusterId cluster) {
        if (!logged.isEmpty()) {
            logged.remove(cluster);
        }
    }

    private static String innermost(Throwable failure) {
        Throwable root = Causes.innermost(failure);
        String message = root == failure ? "" : " (" + root.getMessage() + ")";
        return failure.getMessage() + message;
    }
}
