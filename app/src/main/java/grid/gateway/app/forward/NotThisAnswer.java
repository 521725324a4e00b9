package grid.gateway.app.forward;

/**
 * Bytes read where a request's answer begins that cannot be that answer (docs/design.md §H18): bytes that cannot
 * begin a status line (the rest of an earlier answer: a body longer than it said, a stray CRLF, a last chunk written
 * late), or an answer whose {@code X-Request-Id} names a request sent earlier on the connection. On a reused
 * connection they are what an earlier exchange left, written after the connection was found quiet, so the request
 * is sent once more on a new connection ({@link UpstreamForwarder}); on a new connection they are the engine's
 * malformed answer (502).
 *
 * <p>Not thread-safe (an exception).
 */
final class NotThisAnswer extends MalformedAnswer {
    private static final long serialVersionUID = 1L;

    NotThisAnswer(String message) {
        super(message);
    }
}
