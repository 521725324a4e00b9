package grid.gateway.app.forward;

import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Copies a backend cluster's answer to the client (docs/design.md §9).
 *
 * <pre>
 *   no body (HEAD, 204, 304, empty 205)   status and headers only; a 204 or 304 loses any Content-Length
 *   text/event-stream        event by event, one flush per event; Responses ids tagged inside each event
 *   JSON to be tagged        read whole, ids tagged, Content-Length set to the new length
 *   anything else            chunk by chunk as read, one flush per chunk (docs/design.md §H8: the first write is held until flushed)
 * </pre>
 *
 * <p>A silence longer than the idle timeout between two reads closes the upstream answer. A client that goes away
 * makes a write fail; the answer is then closed unread, which closes the upstream connection, so the engine stops
 * generating (docs/design.md §H4). An upstream that breaks mid-answer makes this throw, so the client's connection is
 * aborted rather than ended cleanly (no terminating chunk, never a shortened body that looks complete). An upstream
 * that breaks, or stays silent past the idle timeout, before its first body byte has sent nothing to the client yet:
 * the result says so and the caller answers 502 or 504 instead.
 *
 * <p>The engine's {@code X-Request-Id} is never copied: the id the gateway chose for the request (the client's when
 * well-formed) is the one the client and the access log see.
 *
 * <p>Thread-safe: one call per request; the set of answers in flight is concurrent.
 */
public final class ResponseRelay {
    private static final System.Logger LOG = System.getLogger(ResponseRelay.class.getName());
    private static final int COPY_BUFFER = 16 * 1024;
    /** Larger JSON answers are streamed untagged rather than held (no Responses object comes near this). */
    private static final int MAX_TAGGED_JSON = 64 * 1024 * 1024;

    /** Answers being copied now, so that a shutdown past its grace can cut them ({@link #cutAll()}). */
    private final Set<UpstreamAnswer> relaying = ConcurrentHashMap.newKeySet();

    /** A relay; each answer's silences are timed by its own idle alarm. */
    public ResponseRelay() {}

    /**
     * Relays {@code answer} to {@code response}; returns what the answer taught (its status and the tail of its
     * body, where engines put usage), doing what {@code plan} says. Runs its {@code firstBytes} once when the first
     * body bytes are in hand (a held JSON answer: the whole body), before anything goes to the client: a stream's
     * first event, or a plain answer's first chunk; not for an answer without a body, nor for one that breaks before
     * its first byte. Its {@code watch} is told how the answer went out (streamed, or whole and how long), before the
     * stream is opened.
     */
    public RelayResult relay(UpstreamAnswer answer, ServerResponse response, RelayPlan plan) {
        IdleAlarm alarm = answer.alarm();
        ClientCut cut = new ClientCut(Thread.currentThread());
        alarm.client(plan.sendTimeout(), cut::fire);
        relaying.add(answer);
        try {
            if (!answer.hasBody()) {
                copyHeaders(answer, response, false);
                try {
                    sendWhole(response, null, plan.watch(), alarm); // a HEAD answer keeps its Content-Length
                } finally {
                    answer.close(); // nothing to read: pooled if nothing followed the head
                }
                return new RelayResult(answer.status(), new BodyTail());
            }
            return relayBody(answer, response, plan);
        } catch (UncheckedIOException | CloseConnectionException e) {
            if (cut.fired()) {
                LOG.log(System.Logger.Level.DEBUG, "a client took no byte of its answer for send_timeout_ms: cut");
                throw new CloseConnectionException("the client stopped reading its answer", e);
            }
            throw e;
        } finally {
            relaying.remove(answer);
            cut.finish();
        }
    }

    /** Relays a body-carrying answer; {@link #relay} registers it for {@link #cutAll()} meanwhile. */
    private RelayResult relayBody(UpstreamAnswer answer, ServerResponse response, RelayPlan plan) {
        AnswerRewrite rewrite = plan.rewrite();
        RelayWatch watch = plan.watch();
        int status = answer.status();
        Optional<HttpMediaType> type = answer.headers().contentType();
        boolean sse = type.map(t -> t.test(MediaTypes.TEXT_EVENT_STREAM)).orElse(false);
        boolean json = type.map(t -> t.test(MediaTypes.APPLICATION_JSON)).orElse(false);
        boolean tagged = rewrite.tagsIds() && (sse || json);
        UpstreamReader reader = new UpstreamReader(answer);
        boolean holdJson = tagged && json && answer.length() <= MAX_TAGGED_JSON;
        ByteArrayOutputStream held = new ByteArrayOutputStream();
        int first;
        try {
            // The status and headers go to the client only once the first body bytes (for a held JSON answer:
            // the whole body) are in hand, so an answer that breaks before them becomes the gateway's own 502/504
            // instead of a status the client cannot trust.
            first = holdJson ? hold(reader, held) : reader.read();
        } catch (IOException | RuntimeException e) {
            answer.cut();
            return new RelayResult(
                    status,
                    new BodyTail(),
                    Optional.of(answer.timedOut() ? UpstreamFailure.TIMEOUT : UpstreamFailure.RESET));
        }
        copyHeaders(answer, response, tagged);
        IdleAlarm alarm = answer.alarm();
        try {
            plan.firstBytes().run();
            RelayResult result;
            if (holdJson && first < 0) {
                result = jsonTagged(status, held.toByteArray(), response, rewrite, watch, alarm);
            } else if (holdJson) {
                // A chunked answer too large to hold: what is held goes out as is, the rest streams untagged.
                OutputStream out = stream(response, watch, alarm);
                held.writeTo(out);
                out.flush();
                result = copy(status, reader, out, AnswerRewrite.NONE.events(out), 0);
            } else if (!sse && reader.holdsWhole(first)) {
                result = whole(status, reader, response, watch, alarm);
            } else {
                OutputStream out = stream(response, watch, alarm);
                EventWriter events = (sse && tagged ? rewrite : AnswerRewrite.NONE).events(out);
                result = copy(status, reader, out, events, first);
            }
            answer.close(); // read to its end: the connection goes back to the pool if nothing followed
            return result;
        } catch (IOException e) {
            answer.cut();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            answer.cut();
            throw e;
        }
    }

    /**
     * Closes every answer being copied now, from another thread, as the idle watchdog does: each copy then fails, so
     * its client's answer ends abnormally, and the upstream connection is closed. Returns how many were cut.
     */
    public int cutAll() {
        int cut = 0;
        for (UpstreamAnswer answer : Set.copyOf(relaying)) {
            answer.cut();
            cut++;
        }
        return cut;
    }

    /**
     * Copies the answer's status and end-to-end headers. Not copied: hop-by-hop ones, the engine's
     * {@code X-Request-Id}, and {@code Content-Length} of a tagged answer (recomputed) or of a 204 or 304 (which has
     * no body: a client must not be told of one).
     */
    private static void copyHeaders(UpstreamAnswer answer, ServerResponse response, boolean tagged) {
        int status = answer.status();
        response.status(answer.reason().isEmpty() ? Status.create(status) : Status.create(status, answer.reason()));
        boolean dropLength = tagged || status == 204 || status == 304;
        HopByHopHeaders hopByHop = HopByHopHeaders.of(answer.headers());
        for (Header header : answer.headers()) {
            if (hopByHop.drops(header)
                    || header.name().equalsIgnoreCase("x-request-id")
                    || (dropLength && header.name().equalsIgnoreCase("content-length"))) {
                continue;
            }
            response.header(header);
        }
    }

    /** Reads a JSON answer whole into {@code held}, up to just past the limit; -1 when it all fit. */
    private static int hold(UpstreamReader reader, ByteArrayOutputStream held) throws IOException {
        int n;
        while ((n = reader.read()) >= 0) {
            held.write(reader.buffer, 0, n);
            if (held.size() > MAX_TAGGED_JSON) {
                return held.size();
            }
        }
        return -1;
    }

    private static RelayResult jsonTagged(
            int status,
            byte[] body,
            ServerResponse response,
            AnswerRewrite rewrite,
            RelayWatch watch,
            IdleAlarm alarm) {
        byte[] tagged = rewrite.tagJson(body);
        response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(tagged.length));
        sendWhole(response, tagged, watch, alarm);
        BodyTail tail = new BodyTail();
        tail.append(body, 0, body.length);
        return new RelayResult(status, tail);
    }

    /**
     * Sends an answer the first read brought whole (its announced length, in a buffer of exactly that size) in one
     * write, without the response's output stream and its buffers: the common short JSON answer.
     */
    private static RelayResult whole(
            int status, UpstreamReader reader, ServerResponse response, RelayWatch watch, IdleAlarm alarm)
            throws IOException {
        if (reader.read() >= 0) {
            throw new IOException("upstream answer longer than announced");
        }
        sendWhole(response, reader.buffer, watch, alarm);
        BodyTail tail = new BodyTail();
        tail.append(reader.buffer, 0, reader.buffer.length);
        return new RelayResult(status, tail);
    }

    /**
     * Sends {@code body} whole (null: no body) under the send timeout, and tells {@code watch} how it went (a failed
     * write is the client gone, or cut).
     */
    private static void sendWhole(ServerResponse response, byte @Nullable [] body, RelayWatch watch, IdleAlarm alarm) {
        try {
            alarm.clientWrite(() -> {
                if (body == null) {
                    response.send();
                } else {
                    response.send(body);
                }
            });
        } catch (IOException e) {
            watch.wholeFailed();
            throw new UncheckedIOException(e);
        } catch (UncheckedIOException | CloseConnectionException e) {
            watch.wholeFailed();
            throw e;
        }
        watch.sentWhole(body == null ? 0 : body.length);
    }

    /** The response's output stream, each write under the send timeout; {@code watch} counts what goes through. */
    private static OutputStream stream(ServerResponse response, RelayWatch watch, IdleAlarm alarm) {
        watch.streaming(response);
        return new DeadlineOutputStream(response.outputStream(), alarm);
    }

    /** Relays the {@code first} bytes already in the reader's buffer, then the rest of the answer. */
    private static RelayResult copy(int status, UpstreamReader reader, OutputStream out, EventWriter events, int first)
            throws IOException {
        BodyTail tail = new BodyTail();
        int n = first;
        while (n >= 0) {
            tail.append(reader.buffer, 0, n);
            events.accept(reader.buffer, 0, n);
            n = reader.read();
        }
        events.finish();
        out.close();
        return new RelayResult(status, tail);
    }

    /** Reads one answer body into its buffer, one read at a time, each watched by the answer's idle alarm. */
    private static final class UpstreamReader {
        final byte[] buffer;
        private final UpstreamAnswer answer;
        /** The announced Content-Length, or -1 (chunked, or until the connection closes). */
        private final long announced;

        UpstreamReader(UpstreamAnswer answer) {
            this.answer = answer;
            this.announced = answer.length();
            // A short answer needs no 16 KiB buffer of its own: sized by what the answer announced.
            this.buffer = new byte[announced < 0 ? COPY_BUFFER : (int) Math.max(1, Math.min(COPY_BUFFER, announced))];
        }

        int read() throws IOException {
            return answer.read(buffer, buffer.length);
        }

        /** Whether a first read of {@code n} bytes brought the whole announced answer and filled the buffer. */
        boolean holdsWhole(int n) {
            return announced > 0 && n == announced && n == buffer.length;
        }
    }
}
