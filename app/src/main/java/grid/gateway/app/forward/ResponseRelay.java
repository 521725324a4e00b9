package grid.gateway.app.forward;

import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.http.Method;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.http.ServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Copies a backend cluster's answer to the client (SPEC §9).
 *
 * <pre>
 *   HEAD, 1xx, 204, 304      status and headers only (never read a body: helidon.md P2)
 *   text/event-stream        event by event, one flush per event; Responses ids tagged inside each event
 *   JSON to be tagged        read whole, ids tagged, Content-Length set to the new length
 *   anything else            chunk by chunk as read, one flush per chunk (P8: the first write is held until flushed)
 * </pre>
 *
 * <p>A silence longer than the idle timeout between two reads closes the upstream answer. A client that goes away
 * makes a write fail; the answer is then closed unread, which closes the upstream connection, so the engine stops
 * generating (P4). An upstream that breaks mid-answer makes this throw, so the client's connection is aborted
 * rather than ended cleanly.
 *
 * <p>Thread-safe: one call per request; the watchdog scheduler is shared.
 */
public final class ResponseRelay {
    private static final int COPY_BUFFER = 16 * 1024;
    /** Larger JSON answers are streamed untagged rather than held (no Responses object comes near this). */
    private static final int MAX_TAGGED_JSON = 64 * 1024 * 1024;

    private final ScheduledExecutorService watchdog;
    private final Duration idleTimeout;
    /** Answers being copied now, so that a shutdown past its grace can cut them ({@link #cutAll()}). */
    private final Set<Http1ClientResponse> relaying = ConcurrentHashMap.newKeySet();

    /** A relay that closes answers silent for longer than {@code idleTimeout}, using {@code watchdog}. */
    public ResponseRelay(ScheduledExecutorService watchdog, Duration idleTimeout) {
        this.watchdog = watchdog;
        this.idleTimeout = idleTimeout;
    }

    /**
     * Relays {@code answer} to {@code response}; returns what the answer taught (its status and the tail of its
     * body, where engines put usage).
     */
    public RelayResult relay(
            Method method, Http1ClientResponse answer, ServerResponse response, AnswerRewrite rewrite) {
        int status = answer.status().code();
        Optional<HttpMediaType> type = answer.headers().contentType();
        boolean sse = type.map(t -> t.test(MediaTypes.TEXT_EVENT_STREAM)).orElse(false);
        boolean json = type.map(t -> t.test(MediaTypes.APPLICATION_JSON)).orElse(false);
        boolean tagged = rewrite.tagsIds() && (sse || json);
        response.status(answer.status());
        HopByHopHeaders hopByHop = HopByHopHeaders.of(answer.headers());
        for (Header header : answer.headers()) {
            if (!hopByHop.drops(header) && !(tagged && header.name().equalsIgnoreCase("content-length"))) {
                response.header(header);
            }
        }
        if (method == Method.HEAD || status < 200 || status == 204 || status == 304) {
            answer.close(); // no body to read (helidon.md P2): the connection goes back to the pool
            response.send();
            return new RelayResult(status, new BodyTail());
        }
        // Not try-with-resources: closing the entity stream drains it, which would read a whole answer the
        // client no longer wants; closing the answer instead closes the upstream connection.
        InputStream in = answer.inputStream();
        relaying.add(answer);
        try {
            RelayResult result =
                    tagged && json && answer.headers().contentLength().orElse(0) <= MAX_TAGGED_JSON
                            ? jsonTagged(status, in, answer, response, rewrite)
                            : streamed(status, in, answer, response, sse && tagged ? rewrite : AnswerRewrite.NONE);
            answer.close(); // fully read: the connection goes back to the pool
            return result;
        } catch (IOException e) {
            answer.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            answer.close();
            throw e;
        } finally {
            relaying.remove(answer);
        }
    }

    /**
     * Closes every answer being copied now, from another thread, as the idle watchdog does: each copy then fails, so
     * its client's answer ends abnormally, and the upstream connection is closed (interrupting the copying thread
     * does not unblock a WebClient read). Returns how many were cut.
     */
    public int cutAll() {
        int cut = 0;
        for (Http1ClientResponse answer : Set.copyOf(relaying)) {
            closeQuietly(answer);
            cut++;
        }
        return cut;
    }

    private RelayResult jsonTagged(
            int status, InputStream in, Http1ClientResponse answer, ServerResponse response, AnswerRewrite rewrite)
            throws IOException {
        ByteArrayOutputStream held = new ByteArrayOutputStream();
        byte[] buffer = new byte[COPY_BUFFER];
        int n;
        while ((n = guardedRead(in, answer, buffer)) >= 0) {
            held.write(buffer, 0, n);
            if (held.size() > MAX_TAGGED_JSON) {
                // A chunked answer too large to hold: what is held goes out as is, the rest streams untagged.
                OutputStream out = response.outputStream();
                held.writeTo(out);
                out.flush();
                return streamed(status, in, answer, out);
            }
        }
        byte[] body = held.toByteArray();
        byte[] tagged = rewrite.tagJson(body);
        response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(tagged.length));
        response.send(tagged);
        BodyTail tail = new BodyTail();
        tail.append(body, 0, body.length);
        return new RelayResult(status, tail);
    }

    private RelayResult streamed(
            int status, InputStream in, Http1ClientResponse answer, ServerResponse response, AnswerRewrite rewrite)
            throws IOException {
        OutputStream out = response.outputStream();
        return copy(status, in, answer, out, rewrite.events(out));
    }

    private RelayResult streamed(int status, InputStream in, Http1ClientResponse answer, OutputStream out)
            throws IOException {
        return copy(status, in, answer, out, AnswerRewrite.NONE.events(out));
    }

    private RelayResult copy(
            int status, InputStream in, Http1ClientResponse answer, OutputStream out, EventWriter events)
            throws IOException {
        BodyTail tail = new BodyTail();
        byte[] buffer = new byte[COPY_BUFFER];
        int n;
        while ((n = guardedRead(in, answer, buffer)) >= 0) {
            tail.append(buffer, 0, n);
            events.accept(buffer, 0, n);
        }
        events.finish();
        out.close();
        return new RelayResult(status, tail);
    }

    /** One read, closing the stream from the watchdog if it stays silent past the idle timeout. */
    private int guardedRead(InputStream in, Http1ClientResponse answer, byte[] buffer) throws IOException {
        ScheduledFuture<?> alarm =
                watchdog.schedule(() -> closeQuietly(answer), idleTimeout.toNanos(), TimeUnit.NANOSECONDS);
        try {
            return in.read(buffer);
        } finally {
            alarm.cancel(false);
        }
    }

    private static void closeQuietly(Http1ClientResponse answer) {
        try {
            answer.close();
        } catch (RuntimeException ignored) {
            // The reader sees the broken stream; nothing else to do here.
        }
    }
}
