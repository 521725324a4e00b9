package grid.gateway.app.forward;

import io.helidon.webserver.http.ServerResponse;

/**
 * Told how a relayed answer went to the client, for the access line's {@code bytes_out} and its ending: streamed
 * through the response's output stream, or sent whole in one write.
 *
 * <p>The two ways are told apart because counting a whole answer on the stream costs: a stream filter on the
 * response sends even {@code send(bytes)} through Helidon's buffered output stream (a write buffer per answer),
 * while a whole answer's length is known before it is written.
 */
public interface RelayWatch {
    /** The answer is about to go out through {@code response}'s output stream: count what is written to it. */
    void streaming(ServerResponse response);

    /** The answer went out whole: {@code bytes} of body. */
    void sentWhole(int bytes);

    /** Writing the whole answer to the client failed (the client went away). */
    void wholeFailed();
}
