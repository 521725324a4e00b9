package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.rewrite.JsonIdStream;
import grid.gateway.app.rewrite.SseIdTagger;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Copies a backend cluster's answer to the client (docs/design.md §9).
 *
 * <pre>
 *   no body (HEAD, 204, 304, 205)         status and headers only; a 204 or 304 loses any Content-Length
 *   stored-id path, body     up to 64 KiB held whole (under twice the idle timeout), ids tagged, Content-Length set to
 *   starting { or [ (after   the new length; longer, or slower: tagged as it streams (whatever its Content-Type says)
 *   any white space)
 *   stored-id path, other    event by event, one flush per event, ids tagged inside each event (whatever its
 *   body                     Content-Type says; a body that is no event stream passes unchanged)
 *   text/event-stream        event by event, one flush per event
 *   anything else            chunk by chunk as read, one flush per chunk (docs/design.md §H8: the first write is held until flushed)
 * </pre>
 *
 * <p>A silence longer than the idle timeout between two reads closes the upstream answer. A client that goes away
 * makes a write fail; the answer is then closed unread, which closes the upstream connection, so the engine stops
 * generating (docs/design.md §H4). An upstream that breaks mid-answer makes this throw a
 * {@link CloseConnectionException}, so the client's connection is closed rather than ended cleanly (no terminating
 * chunk, never a shortened body that looks complete), with one debug line and no stack trace. An upstream
 * that breaks, or stays silent past the idle timeout, before its first body byte, or while the writer holds every byte
 * read so far (a tagged stream's first event), has sent nothing to the client yet, not even its status (the response
 * is opened at the first body byte written: {@link ClientStream}): the result says so and the caller answers 502 or
 * 504 instead.
 *
 * <p>The engine's {@code X-Request-Id} is never copied: the id the gateway chose for the request (the client's when
 * well-formed) is the one the client and the access log see.
 *
 * <p>Thread-safe: one call per request; the set of answers in flight is concurrent.
 */
public final class ResponseRelay {
    private static final System.Logger LOG = System.getLogger(ResponseRelay.class.getName());
    /** What tagging a JSON text as it streams may hold: an id value, and its tagged form. */
    private static final int JSON_TAGGING = 2 * JsonIdStream.MAX_VALUE;
    /**
     * What tagging an event stream may hold besides the tagged copy of an event being written (counted while it is):
     * one event, and an id value of an event tagged as it streams.
     */
    private static final int SSE_TAGGING = SseIdTagger.DEFAULT_MAX_EVENT_BYTES + JSON_TAGGING;

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
        alarm.client(plan.sendDeadline(), cut::fire);
        relaying.add(answer);
        try {
            if (!answer.hasBody()) {
                try {
                    answer.readNoContent(); // a 205's chunked body, the last chunk alone
                } catch (IOException | RuntimeException e) {
                    answer.cut();
                    return failedBeforeBody(answer);
                }
                copyHeaders(answer, response, false);
                answer.release(); // nothing to read: pooled if nothing followed the head
                sendWhole(response, null, plan.watch(), alarm); // a HEAD answer keeps its Content-Length
                return new RelayResult(answer.status(), new BodyTail());
            }
            return relayBody(answer, response, plan);
        } catch (RuntimeException e) {
            if (cut.fired()) {
                LOG.log(System.Logger.Level.DEBUG, "a client took no byte of its answer for send_timeout_ms: cut");
                plan.sendDeadline().timedOut().run();
                throw new CloseConnectionException("the client stopped reading its answer", new SendTimedOut(e));
            }
            if (answer.broke()) {
                // The engine broke its answer after the status went out (a reset, a close inside the framing, a
                // malformed chunk or trailer, a silence): the client's connection can only end abnormally. Helidon
                // closes it for this exception without logging it; the access log's end says upstream_cut.
                LOG.log(
                        System.Logger.Level.DEBUG,
                        () -> "an upstream answer broke after it began (" + Causes.describe(e)
                                + "): client connection closed");
                throw new CloseConnectionException("the upstream answer broke after it began", e);
            }
            throw e;
        } finally {
            answer.close(); // its alarm disarmed; its connection already let go of, or closed now
            relaying.remove(answer);
            cut.finish();
        }
    }

    /** Relays a body-carrying answer; {@link #relay} registers it for {@link #cutAll()} meanwhile. */
    private RelayResult relayBody(UpstreamAnswer answer, ServerResponse response, RelayPlan plan) {
        boolean labelledEvents = AnswerMediaType.of(answer.headers()) == AnswerMediaType.EVENTS;
        boolean tagged = plan.rewrite().tagsIds();
        if (tagged && (answer.encoded() || UnreadableText.declaresOtherCharset(answer.headers()))) {
            // Its ids are in bytes a content coding hides, or in text a client may decode otherwise than the taggers:
            // relayed untagged, they would turn pinning off, or reach the client naming another cluster.
            answer.cut();
            return failedBeforeBody(answer);
        }
        UpstreamReader reader = new UpstreamReader(answer, labelledEvents);
        plan.memory().hold(reader.buffer.length);
        Read read;
        try {
            // The status and headers go to the client only once the first body bytes (for a tagged JSON answer:
            // the whole of a short one, the first 64 KiB of a longer one) are in hand, so an answer that breaks
            // before them becomes the gateway's own 502/504 instead of a status the client cannot trust.
            read = firstBytes(reader, plan, tagged, labelledEvents);
        } catch (IOException | RuntimeException e) {
            answer.cut();
            return failedBeforeBody(answer);
        }
        ClientStream client =
                new ClientStream(response, plan.watch(), answer.alarm(), () -> copyHeaders(answer, response, tagged));
        try {
            plan.firstBytes().run();
            return relayRead(answer, client, plan, reader, read);
        } catch (IOException | RuntimeException e) {
            answer.cut();
            if (answer.broke() && !client.opened()) {
                // The engine broke its answer while the writer held all of it read so far (a tagged stream's first
                // event, held to be tagged whole): nothing went to the client, which gets the gateway's 502 or 504.
                return failedBeforeBody(answer);
            }
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    /**
     * Reads the first body bytes. On a path whose answers carry stored ids every body is tagged, and its first byte
     * other than white space, not its {@code Content-Type}, says how: a client parses the body it asked for (a JSON
     * object, or the event stream of a request with {@code stream}), whatever the engine labelled it. An opening brace
     * or bracket starts JSON, held up to 64 KiB and tagged whole or as it streams; any other byte starts an event
     * stream, tagged event by event (a body that is neither passes both taggers unchanged). Only white space so far
     * leaves it to the label: an event stream's first read is not held for the byte after it (a blank line may be a
     * keep-alive), but a JSON answer is held anyway, and one whose held start turns out to be no JSON is an event
     * stream. A body in text the taggers do not read but a client may ({@link UnreadableText}) fails, as a compressed
     * one does.
     */
    private static Read firstBytes(UpstreamReader reader, RelayPlan plan, boolean tagged, boolean labelledEvents)
            throws IOException {
        int first = reader.read();
        if (!tagged) {
            return new Read(first, null, labelledEvents, false);
        }
        if (UnreadableText.hidesIds(reader.buffer, first)) {
            throw new IOException("a tagged answer begins with a byte order mark, or is not UTF-8");
        }
        boolean json = first > 0 ? AnswerMediaType.startsJson(reader.buffer, first, labelledEvents) : !labelledEvents;
        if (!json) {
            plan.memory().hold(SSE_TAGGING);
            return new Read(first, null, true, true);
        }
        HeldAnswer held = new HeldAnswer(reader.announced, plan.memory());
        int rest = hold(reader, held, first, reader.answer.alarm());
        if (UnreadableText.hidesIds(held.bytes(), held.size())) {
            throw new IOException("a tagged JSON answer is in UTF-16 or UTF-32");
        }
        if (!AnswerMediaType.startsJson(held.bytes(), held.size(), false)) {
            plan.memory().hold(SSE_TAGGING); // white space, then no JSON: an event stream, its start held
            return new Read(rest, held, true, true);
        }
        return new Read(rest, held, false, false);
    }

    /**
     * What was read before the headers went out: {@code first} bytes in the reader's buffer (-1: the body ended), the
     * held start of a tagged answer (or null; its bytes were read, so the reader's buffer holds none of them to send
     * again), whether the answer is an event stream, and a tagged one.
     */
    private record Read(int first, @Nullable HeldAnswer held, boolean events, boolean taggedEvents) {}

    /** Relays the rest of a body whose first bytes are in hand, by its kind. */
    private static RelayResult relayRead(
            UpstreamAnswer answer, ClientStream client, RelayPlan plan, UpstreamReader reader, Read read)
            throws IOException {
        int status = answer.status();
        IdleAlarm alarm = answer.alarm();
        HeldAnswer held = read.held();
        if (held != null && read.taggedEvents()) {
            return heldEvents(answer, client, plan, reader, read);
        }
        if (held != null && read.first() < 0) {
            answer.release();
            byte[] body = Arrays.copyOf(held.bytes(), held.size());
            held.letGo();
            plan.memory().hold(body.length); // the copy sent; a tagged one is counted once made
            return jsonTagged(status, body, client.headers(), plan, alarm);
        }
        if (held != null) {
            // Longer than is held: tagged as it streams, chunked (its length changes), starting with what is held.
            plan.memory().hold(JSON_TAGGING);
            EventWriter writer = plan.rewrite().json(client);
            BodyTail tail = plan.tail(false);
            tail.append(held.bytes(), 0, held.size());
            writer.accept(held.bytes(), 0, held.size());
            writer.handOnHeld(); // held up to an idle timeout: an id value kept of it goes, tagged as far as it came
            held.letGo(); // handed on: a stream read for minutes holds its copy buffer and tail only
            return copy(answer, reader, client, writer, new Copy(0, tail));
        }
        if (!read.taggedEvents() && reader.holdsWhole(read.first())) {
            return whole(answer, reader, client.headers(), plan, alarm);
        }
        EventWriter events = (read.taggedEvents() ? plan.rewrite() : AnswerRewrite.NONE).events(client, plan.memory());
        BodyTail tail = plan.tail(read.events());
        return copy(answer, reader, client, events, new Copy(read.first(), tail));
    }

    /** Relays a tagged event stream whose start was held as JSON would be: that start first, then the rest. */
    private static RelayResult heldEvents(
            UpstreamAnswer answer, ClientStream client, RelayPlan plan, UpstreamReader reader, Read read)
            throws IOException {
        HeldAnswer held = requireNonNull(read.held(), "held");
        EventWriter events = plan.rewrite().events(client, plan.memory());
        BodyTail tail = plan.tail(true);
        tail.append(held.bytes(), 0, held.size());
        events.accept(held.bytes(), 0, held.size());
        held.letGo();
        // Every byte read so far was held: the reader's buffer holds none to send again (-1: the body ended).
        return copy(answer, reader, client, events, new Copy(Math.min(read.first(), 0), tail));
    }

    /** Why an answer that gave the client nothing yet failed: a silence past the idle timeout, else a fault. */
    private static RelayResult failedBeforeBody(UpstreamAnswer answer) {
        return new RelayResult(
                answer.status(),
                new BodyTail(),
                Optional.of(answer.timedOut() ? UpstreamFailure.TIMEOUT : UpstreamFailure.RESET));
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

    /**
     * Reads a JSON answer into {@code held}, its first {@code first} bytes already in the reader's buffer, up to just
     * past its limit, or until a read ends an idle timeout or more after the hold began (each read waits at most the
     * idle timeout, so under twice that in all); -1 when it all came. Nothing goes to the client while an answer
     * is held, not even its status, so an engine that trickles a short answer (each read within the idle timeout)
     * would otherwise keep the client waiting for as long as it trickles: past the idle timeout, as long as a silent
     * engine may keep it, the answer is tagged as it streams from what is held.
     */
    private static int hold(UpstreamReader reader, HeldAnswer held, int first, IdleAlarm alarm) throws IOException {
        long since = alarm.now();
        for (int n = first; n >= 0; n = reader.read()) {
            if (!held.add(reader.buffer, n) || alarm.idleTimeoutPassedSince(since)) {
                return held.size();
            }
        }
        return -1;
    }

    private static RelayResult jsonTagged(
            int status, byte[] body, ServerResponse response, RelayPlan plan, IdleAlarm alarm) {
        byte[] tagged = plan.rewrite().tagJson(body);
        if (tagged != body) {
            plan.memory().hold(tagged.length);
        }
        response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(tagged.length));
        sendWhole(response, tagged, plan.watch(), alarm);
        BodyTail tail = plan.tail(false);
        tail.append(body, 0, body.length);
        return new RelayResult(status, tail);
    }

    /**
     * Sends an answer the first read brought whole (its announced length, in a buffer of exactly that size) in one
     * write, without the response's output stream and its buffers: the common short JSON answer.
     */
    private static RelayResult whole(
            UpstreamAnswer answer, UpstreamReader reader, ServerResponse response, RelayPlan plan, IdleAlarm alarm)
            throws IOException {
        int status = answer.status();
        if (reader.read() >= 0) {
            throw new IOException("upstream answer longer than announced");
        }
        answer.release();
        sendWhole(response, reader.buffer, plan.watch(), alarm);
        BodyTail tail = plan.tail(false);
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

    /** Where a copy starts: {@code first} bytes already in the reader's buffer, and the body's tail so far. */
    private record Copy(int first, BodyTail tail) {}

    /** Relays the first bytes already in the reader's buffer, then the rest of the answer. */
    private static RelayResult copy(
            UpstreamAnswer answer, UpstreamReader reader, OutputStream out, EventWriter events, Copy from)
            throws IOException {
        int status = answer.status();
        BodyTail tail = from.tail();
        HoldTimer held = new HoldTimer(answer.alarm());
        int n = from.first();
        while (n >= 0) {
            tail.append(reader.buffer, 0, n);
            events.accept(reader.buffer, 0, n);
            if (held.overdue(events.holds())) {
                events.handOnHeld(); // an event or an id value held to be tagged, as a held answer (hold())
            }
            n = reader.read();
        }
        answer.release(); // read to its end: the connection is pooled before the last write to the client
        events.finish();
        out.close();
        return new RelayResult(status, tail);
    }
}
