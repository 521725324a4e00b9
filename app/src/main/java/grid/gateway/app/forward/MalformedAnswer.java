package grid.gateway.app.forward;

import java.io.IOException;

/**
 * An upstream answer that breaks HTTP/1.1 framing or the gateway's rules for what it relays (docs/design.md §H18): a
 * bad status line or header field, two framings, an unasked {@code 101}, content on a status that forbids it, a bad
 * chunk. The connection it came on is closed, never pooled, and an answer not yet started becomes the gateway's 502
 * (or, for a {@link NotThisAnswer} on a reused connection, the request is sent again on a new one).
 *
 * <p>Not thread-safe (an exception).
 */
class MalformedAnswer extends IOException {
    private static final long serialVersionUID = 1L;

    MalformedAnswer(String message) {
        super(message);
    }
}
