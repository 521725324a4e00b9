package grid.gateway.app.access;

import grid.gateway.app.forward.SendTimedOut;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ServerConnectionException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * How a client request ended: the {@code end} field of its access log line.
 *
 * <p>Stateless and thread-safe.
 */
public enum Ending {
    /** The answer went out whole: a cluster's, or the gateway's own non-error answer (the model list). */
    ANSWERED,
    /** The gateway answered with its own error: 4xx, or 502/503/504 when no cluster could answer. */
    REFUSED,
    /** The client left before its answer ended: a write to it failed, or the disconnect probe found it gone. */
    CLIENT_GONE,
    /** The cluster broke its answer after it had started: the client's answer ends abnormally. */
    UPSTREAM_CUT,
    /**
     * The client took no byte of its answer for {@code server.send_timeout_ms} while a write to it waited: the gateway
     * closed its connection (and a relayed answer's upstream connection).
     */
    SEND_TIMEOUT,
    /** Still in flight at a graceful shutdown's grace deadline: the gateway cut it (and its upstream connection). */
    SHUTDOWN_CUT,
    /** A fault in the gateway. */
    ERROR;

    /** Built once: every access line writes one (a lower-cased copy per line showed in the profile). */
    private final String label = name().toLowerCase(Locale.ROOT);

    /** The field's value. */
    public String label() {
        return label;
    }

    /**
     * Sorts a finished request.
     *
     * @param record what the request did
     * @param thrown what the handler threw, if anything
     * @param writeFailed whether a write to the client failed
     * @param sent whether the answer was sent (Helidon's view)
     * @param status the status the answer has
     */
    static Ending of(
            AccessRecord record, @Nullable RuntimeException thrown, boolean writeFailed, boolean sent, int status) {
        if (record.shutdownCut) {
            return SHUTDOWN_CUT; // whatever the cut made the request throw: a client write or an upstream read ended
        }
        if (thrown != null && SendTimedOut.in(thrown)) {
            return SEND_TIMEOUT; // a failed write, but the gateway closed the connection, not the client
        }
        if (writeFailed || record.clientGone || thrown instanceof ServerConnectionException) {
            return CLIENT_GONE;
        }
        if (thrown == null) {
            return byStatus(record, status);
        }
        if (record.upstreamStatus >= 0 && record.upstreamFailure == null) {
            // A cluster's answer was being relayed, and the client was still there: the cluster broke it (Helidon
            // hands the relay's exception on as "status and headers already written").
            return UPSTREAM_CUT;
        }
        // Thrown after an answer that went out, to close the connection: a refusal whose body was left unread.
        return thrown instanceof CloseConnectionException && sent ? byStatus(record, status) : ERROR;
    }

    private static Ending byStatus(AccessRecord record, int status) {
        return status >= 400 && record.answeredByGateway() ? REFUSED : ANSWERED;
    }
}
