package grid.gateway.app.forward;

import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import org.jspecify.annotations.Nullable;

/**
 * The client's side of a relayed answer: the answer's status and headers are copied to the response, and its output
 * stream opened (each write under the send timeout, counted by the {@link RelayWatch}), only when the first byte is
 * written or the stream closed, or when the answer goes out whole ({@link #headers()}). Until then
 * nothing of the engine's answer is in the response ({@link #opened()} is false): a writer that holds what it has
 * read (a tagged event stream's first event, held to be tagged whole) and an engine that breaks meanwhile leave the
 * response free for the gateway's own 502 or 504, not a connection closed without a status.
 *
 * <p>Not thread-safe; one per answer, used by the relay's thread.
 */
final class ClientStream extends OutputStream {
    private final ServerResponse response;
    private final RelayWatch watch;
    private final IdleAlarm alarm;
    private final Runnable copyHeaders;
    private boolean copied;
    private @Nullable OutputStream out;

    /** A stream to {@code response}; {@code copyHeaders} puts the answer's status and headers on it. */
    ClientStream(ServerResponse response, RelayWatch watch, IdleAlarm alarm, Runnable copyHeaders) {
        this.response = response;
        this.watch = watch;
        this.alarm = alarm;
        this.copyHeaders = copyHeaders;
    }

    /** The response with the answer's status and headers on it, for an answer that goes out whole. */
    ServerResponse headers() {
        if (!copied) {
            copied = true;
            copyHeaders.run();
        }
        return response;
    }

    /** Whether anything of the answer, its status or headers included, was put on the response. */
    boolean opened() {
        return copied;
    }

    private OutputStream out() {
        if (out == null) {
            headers();
            watch.streaming(response);
            out = new DeadlineOutputStream(response.outputStream(), alarm);
        }
        return out;
    }

    @Override
    public void write(int b) throws IOException {
        out().write(b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        out().write(bytes, offset, length);
    }

    /** Flushes what was written; before the first write there is nothing to flush, and nothing is opened. */
    @Override
    public void flush() throws IOException {
        if (out != null) {
            out.flush();
        }
    }

    @Override
    public void close() throws IOException {
        out().close();
    }
}
