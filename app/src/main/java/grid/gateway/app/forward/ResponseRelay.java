package grid.gateway.app.forward;

import grid.gateway.routing.time.MonotonicClock;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HttpMediaType;
import io.helidon.http.Method;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * Copies a backend cluster's answer to the client (docs/design.md §9).
 *
 * <pre>
 *   HEAD, 1xx, 204, 304      status and headers only (never read a body: docs/design.md §H2)
 *   text/event-stream        event by event, one flush per event; Responses ids tagged inside each event
 *   JSON to be tagged        read whole, ids tagged, Content-Length set to the new length
 *   anything else            chunk by chunk as read, one flush per chunk (docs/design.md §H8: the first write is held until flushed)
 * </pre>
 *
 * <p>A silence longer than the idle timeout between two reads closes the upstream answer. A client that goes away
 * makes a write fail; the answer is then closed unread, which closes the upstream connection, so the engine stops
 * generating (docs/design.md §H4). An upstream that breaks mid-answer makes this throw, so the client's connection is aborted
 * rather than ended cleanly (no terminating chunk, never a shortened body that looks complete). An upstream that
 * breaks, or stays silent past the idle timeout, before its first body byte has sent nothing to the client yet: the
 * result says so and the caller answers 502 or 504 instead.
 *
 * <p>Thread-safe: one call per request; the watchdog scheduler is shared.
 */
public final class ResponseRelay {
    private static final int COPY_BUFFER = 16 * 1024;
    /** Larger JSON answers are streamed untagged rather than held (no Responses object comes near this). */
    private static final int MAX_TAGGED_JSON = 64 * 1024 * 1024;

    private final ScheduledExecutorService watchdog;
    private final Duration idleTimeout;
    private final MonotonicClock clock;
    /** Answers being copied now, so that a shutdown past its grace can cut them ({@link #cutAll()}). */
    private final Set<Http1ClientResponse> relaying = ConcurrentHashMap.newKeySet();

    /**
     * A relay that closes answers silent for longer than {@code idleTimeout}, using {@code watchdog} and timing the
     * silences with {@code clock}.
     */
    public ResponseRelay(ScheduledExecutorService watchdog, Duration idleTimeout, MonotonicClock clock) {
        this.watchdog = watchdog;
        this.idleTimeout = idleTimeout;
        this.clock = clock;
    }

    /**
     * Relays {@code answer} to {@code response}; returns what the answer taught (its status and the tail of its
     * body, where engines put usage), doing what {@code plan} says. Runs its {@code firstBytes} once when the first
     * body bytes are in hand (a held JSON answer: the whole body), before anything goes to the client: a stream's
     * first event, or a plain answer's first chunk; not for an answer without a body, nor for one that breaks before
     * its first byte. Its {@code watch} is told how the answer went out (streamed, or whole and how long), before the
     * stream is opened.
     */
    public RelayResult relay(Method method, Http1ClientResponse answer, ServerResponse response, RelayPlan plan) {
        AnswerRewrite rewrite = plan.rewrite();
        Runnable firstBytes = plan.firstBytes();
        RelayWatch watch = plan.watch();
        int status = answer.status().code();
        if (method == Method.HEAD || status < 200 || status == 204 || status == 304) {
            copyHeaders(answer, response, false);
            answer.close(); // no body to read (docs/design.md §H2): the connection goes back to the pool
            sendWhole(response, null, watch); // send() as is: a HEAD answer keeps the Content-Length it announced
            return new RelayResult(status, new BodyTail());
        }
        relaying.add(answer);
        try {
            return relayBody(answer, response, rewrite, firstBytes, watch);
        } finally {
            relaying.remove(answer);
        }
    }

    /** Relays a body-carrying answer; {@link #relay} registers it for {@link #cutAll()} meanwhile. */
    private RelayResult relayBody(
            Http1ClientResponse answer,
            ServerResponse response,
            AnswerRewrite rewrite,
            Runnable firstBytes,
            RelayWatch watch) {
        int status = answer.status().code();
        Optional<HttpMediaType> type = answer.headers().contentType();
        boolean sse = type.map(t -> t.test(MediaTypes.TEXT_EVENT_STREAM)).orElse(false);
        boolean json = type.map(t -> t.test(MediaTypes.APPLICATION_JSON)).orElse(false);
        boolean tagged = rewrite.tagsIds() && (sse || json);
        // Not try-with-resources: closing the entity stream drains it, which would read a whole answer the
        // client no longer wants; closing the answer instead closes the upstream connection.
        InputStream in = answer.inputStream();
        UpstreamReader reader = new UpstreamReader(answer, in);
        boolean holdJson = tagged && json && answer.headers().contentLength().orElse(0) <= MAX_TAGGED_JSON;
        ByteArrayOutputStream held = new ByteArrayOutputStream();
        int first;
        try {
            // The status and headers go to the client only once the first body bytes (for a held JSON answer:
            // the whole body) are in hand, so an answer that breaks before them becomes the gateway's own 502/504
            // instead of a status the client cannot trust.
            first = holdJson ? hold(reader, held) : reader.read();
        } catch (IOException | RuntimeException e) {
            reader.disarm();
            answer.close();
            return new RelayResult(
                    status,
                    new BodyTail(),
                    Optional.of(reader.timedOut ? UpstreamFailure.TIMEOUT : UpstreamFailure.RESET));
        }
        copyHeaders(answer, response, tagged);
        try {
            firstBytes.run();
            RelayResult result;
            if (holdJson && first < 0) {
                result = jsonTagged(status, held.toByteArray(), response, rewrite, watch);
            } else if (holdJson) {
                // A chunked answer too large to hold: what is held goes out as is, the rest streams untagged.
                watch.streaming(response);
                OutputStream out = response.outputStream();
                held.writeTo(out);
                out.flush();
                result = copy(status, reader, out, AnswerRewrite.NONE.events(out), 0);
            } else if (!sse && reader.holdsWhole(first)) {
                result = whole(status, reader, response, watch);
            } else {
                watch.streaming(response);
                OutputStream out = response.outputStream();
                EventWriter events = (sse && tagged ? rewrite : AnswerRewrite.NONE).events(out);
                result = copy(status, reader, out, events, first);
            }
            reader.disarm();
            answer.close(); // fully read: the connection goes back to the pool
            return result;
        } catch (IOException e) {
            reader.disarm();
            answer.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            reader.disarm();
            answer.close();
            throw e;
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
            try {
                answer.close();
            } catch (RuntimeException ignored) {
                // The copying thread sees the broken stream; nothing else to do here.
            }
            cut++;
        }
        return cut;
    }

    /** Copies the answer's end-to-end headers; a tagged answer's Content-Length is recomputed, not copied. */
    private static void copyHeaders(Http1ClientResponse answer, ServerResponse response, boolean tagged) {
        response.status(answer.status());
        HopByHopHeaders hopByHop = HopByHopHeaders.of(answer.headers());
        for (Header header : answer.headers()) {
            if (!hopByHop.drops(header) && !(tagged && header.name().equalsIgnoreCase("content-length"))) {
                response.header(header);
            }
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
        reader.checkComplete();
        return -1;
    }

    private static RelayResult jsonTagged(
            int status, byte[] body, ServerResponse response, AnswerRewrite rewrite, RelayWatch watch) {
        byte[] tagged = rewrite.tagJson(body);
        response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(tagged.length));
        sendWhole(response, tagged, watch);
        BodyTail tail = new BodyTail();
        tail.append(body, 0, body.length);
        return new RelayResult(status, tail);
    }

    /**
     * Sends an answer the first read brought whole (its announced length, in a buffer of exactly that size) in one
     * write, without the response's output stream and its buffers: the common short JSON answer.
     */
    private static RelayResult whole(int status, UpstreamReader reader, ServerResponse response, RelayWatch watch)
            throws IOException {
        if (reader.read() >= 0) {
            throw new IOException("upstream answer longer than announced");
        }
        reader.checkComplete();
        sendWhole(response, reader.buffer, watch);
        BodyTail tail = new BodyTail();
        tail.append(reader.buffer, 0, reader.buffer.length);
        return new RelayResult(status, tail);
    }

    /**
     * Sends {@code body} whole (null: no body), and tells {@code watch} how it went (a failed write is the client
     * gone).
     */
    private static void sendWhole(ServerResponse response, byte @Nullable [] body, RelayWatch watch) {
        try {
            if (body == null) {
                response.send();
            } else {
                response.send(body);
            }
        } catch (UncheckedIOException | CloseConnectionException e) {
            watch.wholeFailed();
            throw e;
        }
        watch.sentWhole(body == null ? 0 : body.length);
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
        reader.checkComplete();
        events.finish();
        out.close();
        return new RelayResult(status, tail);
    }

    /**
     * Reads one answer body into its buffer, one read at a time, watched by one {@link IdleAlarm} for the whole
     * answer: a silence past the timeout closes the answer, and the reader remembers that silence, not a fault,
     * broke the read.
     */
    private final class UpstreamReader {
        final byte[] buffer;
        private final Http1ClientResponse answer;
        private final InputStream in;
        private final IdleAlarm alarm;
        /** The announced Content-Length, or -1 (chunked, or until the connection closes). */
        private final long announced;

        private long received;
        private volatile boolean timedOut;

        UpstreamReader(Http1ClientResponse answer, InputStream in) {
            this.answer = answer;
            this.in = in;
            this.announced = answer.headers().contentLength().orElse(-1);
            // The WebClient allocates a fresh array of the length asked for on every read, and a short answer
            // needs no 16 KiB buffer of its own either: both are sized by what the answer announced.
            this.buffer = new byte[announced < 0 ? COPY_BUFFER : (int) Math.max(1, Math.min(COPY_BUFFER, announced))];
            this.alarm = IdleAlarm.arm(watchdog, clock, idleTimeout, this::onIdle);
        }

        int read() throws IOException {
            int wanted = announced < 0
                    ? buffer.length
                    // At the announced end, one byte is asked for: the read that finds the end of the stream.
                    : (int) Math.max(1, Math.min(buffer.length, announced - received));
            int n = alarm.read(in, buffer, wanted);
            received += Math.max(n, 0);
            return n;
        }

        /** Whether a first read of {@code n} bytes brought the whole announced answer and filled the buffer. */
        boolean holdsWhole(int n) {
            return announced > 0 && n == announced && n == buffer.length;
        }

        /** The answer is done with (read to its end or abandoned): no alarm may close it any more. */
        void disarm() {
            alarm.close();
        }

        /**
         * At the end of the stream: fails if the answer announced a Content-Length it did not deliver, so a cut
         * answer is never relayed as a shorter complete one.
         */
        void checkComplete() throws IOException {
            OptionalLong announced = answer.headers().contentLength();
            if (announced.isPresent() && announced.getAsLong() != received) {
                throw new IOException("upstream answer ended after " + received + " of " + announced.getAsLong()
                        + " announced bytes");
            }
        }

        private void onIdle() {
            timedOut = true;
            try {
                answer.close();
            } catch (RuntimeException ignored) {
                // The reader sees the broken stream; nothing else to do here.
            }
        }
    }
}
