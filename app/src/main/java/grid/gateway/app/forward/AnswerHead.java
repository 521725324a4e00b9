package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import io.helidon.http.Headers;

/**
 * The final status line and header fields of one upstream answer, and what they say about its body and its
 * connection (RFC 9112 §6.3, docs/design.md §H18).
 *
 * <p>Thread-safe once built (immutable; the headers are not modified after parsing).
 *
 * @param status the status code, 102..599 but never 101 (interim answers are skipped, an unasked switch refused)
 * @param reason the reason phrase as sent (may be empty)
 * @param headers every header field as sent, hop-by-hop ones included (the relay drops those)
 * @param framing how the body is delimited
 * @param length the body's length for {@link Framing#LENGTH}, else -1
 * @param keepsConnection whether the connection may carry another request once this answer is read exactly: HTTP/1.1,
 *     no {@code Connection: close} or {@code upgrade} (in this head or an interim one before it), a body that does not
 *     end with the connection, and no 204 announcing a body it cannot have (that body may follow the head)
 */
record AnswerHead(int status, String reason, Headers headers, Framing framing, long length, boolean keepsConnection) {
    AnswerHead {
        requireNonNull(reason, "reason");
        requireNonNull(headers, "headers");
        requireNonNull(framing, "framing");
    }

    /** How an answer's body is delimited. */
    enum Framing {
        /**
         * No body: a HEAD answer, 204, 304, or a 205 with a Content-Length of 0; bytes after the head are not its body.
         */
        NONE,
        /** {@code Content-Length} bytes. */
        LENGTH,
        /** {@code Transfer-Encoding: chunked}: chunks (extensions ignored), the last chunk, trailer fields. */
        CHUNKED,
        /** Everything until the engine closes the connection, which then cannot be reused. */
        UNTIL_CLOSE
    }

    /**
     * Whether a body follows the head to be relayed (an empty Content-Length body counts as one): not for a 205, which
     * has no content (RFC 9110 §15.3.6); one delimited by its connection's end is not read, and that connection is
     * closed.
     */
    boolean hasBody() {
        return framing != Framing.NONE && status != 205;
    }
}
