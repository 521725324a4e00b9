package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerResponse;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * One server-sent event stream, written and flushed event by event (docs/design.md §H8), in the framing of
 * the request's API (docs/design.md §A8): {@code data: <json>} for Chat Completions and Completions, ended by
 * {@code data: [DONE]}; {@code event: <type>} plus {@code data: <json>} for Anthropic Messages and Responses.
 * Scripted faults act between events: pauses, holds, and an abrupt reset of the connection.
 *
 * <p>Not thread-safe; one per request.
 */
final class EventStream {
    /** The content type vLLM's streaming responses carry. */
    static final String CONTENT_TYPE = "text/event-stream; charset=utf-8";

    private final OutputStream out;
    private final FaultPlan faults;
    private final Pacer pacer;
    private int written;

    /**
     * Starts the stream; the headers go out with the first event (Helidon holds them until the first bytes), so a
     * reset scripted after zero events closes the connection before the client sees any answer.
     */
    EventStream(ServerResponse response, FaultPlan faults, Pacer pacer) {
        this.faults = requireNonNull(faults, "faults");
        this.pacer = requireNonNull(pacer, "pacer");
        response.header(HeaderNames.CONTENT_TYPE, CONTENT_TYPE);
        this.out = response.outputStream();
        if (faults.resetsAfter(0)) {
            throw reset(); // nothing was written, so not even the status line goes out
        }
    }

    /** A {@code data:}-only event (Chat Completions, Completions). */
    void data(JsonObject json) throws InterruptedException {
        write("data: " + json + "\n\n");
    }

    /** The end of a Chat Completions or Completions stream. */
    void done() throws InterruptedException {
        write("data: [DONE]\n\n");
    }

    /** A named event whose JSON carries the same {@code type} (Anthropic Messages, Responses). */
    void event(String type, JsonObject json) throws InterruptedException {
        write("event: " + type + "\ndata: " + json + "\n\n");
    }

    /** Events written so far. */
    int written() {
        return written;
    }

    private void write(String frame) throws InterruptedException {
        faults.holdBeforeEvent(written, pacer);
        try {
            out.write(frame.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        flush();
        written++;
        if (faults.resetsAfter(written)) {
            throw reset();
        }
    }

    private void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private CloseConnectionException reset() {
        return new CloseConnectionException("scripted reset after " + written + " events");
    }

    /**
     * Ends the chunked body properly. Only a stream that ran to its end calls this: when anything fails midway the
     * handler throws instead, and Helidon closes the connection without the last chunk.
     */
    void end() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
