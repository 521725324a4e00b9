package grid.gateway.app.forward;

import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One final upstream answer being relayed: its head, and its body read through the answer's {@link IdleAlarm}
 * (docs/design.md §9, §H18). It ends once, with {@link #close()}: its connection goes back to the pool only when the
 * engine is known to have taken the whole request before it, its body was read to its exact end, nothing was read
 * past it and the head lets the connection live on; every other end
 * (a body left unread, a client gone, a fault, a silence past the idle timeout, a shutdown cut) closes the connection,
 * which also tells the engine to stop (vLLM aborts a request whose connection closes).
 *
 * <p>Thread-safe for {@link #cut()} and {@link #close()} (any thread; the first end wins); the reads belong to the
 * relay's thread.
 */
public final class UpstreamAnswer {
    private final UpstreamConnection connection;
    private final AnswerHead head;
    private final AnswerBody body;
    private final IdleAlarm alarm;
    private final ConnectionPool pool;
    private final boolean requestWhole;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Whether a read of the body failed: the engine broke its answer (or went silent), not the client. */
    private volatile boolean broke;

    /**
     * An answer read on {@code connection}, whose idle alarm {@code alarm} closes that connection when it goes off;
     * {@code requestWhole}: the engine is known to have taken the whole request when it answered (the whole body
     * written before the answer's head was read, and a 2xx); else the connection may hold part of a request and is
     * never pooled.
     */
    UpstreamAnswer(
            UpstreamConnection connection,
            AnswerHead head,
            IdleAlarm alarm,
            ConnectionPool pool,
            boolean requestWhole) {
        this.connection = connection;
        this.requestWhole = requestWhole;
        this.head = head;
        this.body = new AnswerBody(connection.reader(), head);
        this.alarm = alarm;
        this.pool = pool;
    }

    /** The status code. */
    public int status() {
        return head.status();
    }

    /** The reason phrase as sent (may be empty). */
    public String reason() {
        return head.reason();
    }

    /** The answer's header fields, hop-by-hop ones included. */
    public Headers headers() {
        return head.headers();
    }

    /** Whether a body follows the head to be relayed: not for a HEAD answer, 204, 304 or 205. */
    public boolean hasBody() {
        return head.hasBody();
    }

    /**
     * Whether the body is in a content coding other than identity ({@code gzip}, {@code br}, ...): its bytes are then
     * no text to find ids or usage in.
     */
    public boolean encoded() {
        if (!head.headers().contains(HeaderNames.CONTENT_ENCODING)) {
            return false;
        }
        for (String value : head.headers().values(HeaderNames.CONTENT_ENCODING)) {
            for (String coding : value.split(",")) {
                String token = coding.strip();
                if (!token.isEmpty() && !token.equalsIgnoreCase("identity")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The body's announced length, or -1 when it is chunked or ends with the connection. */
    public long length() {
        return head.length();
    }

    /**
     * One read of the body, of at most {@code length} bytes, watched by the idle alarm.
     *
     * @return the count read, or -1 at the body's end
     */
    public int read(byte[] buffer, int length) throws IOException {
        try {
            return alarm.read(body, buffer, length);
        } catch (IOException | RuntimeException e) {
            broke = true;
            throw e;
        }
    }

    /**
     * Reads to its end the framing of an answer relayed without a body that still frames one: a 205's chunked body,
     * which must be the last chunk alone, so that its connection stays in step. Nothing for any other answer.
     *
     * @throws IOException if that body carries content ({@link MalformedAnswer}), breaks or stays silent
     */
    void readNoContent() throws IOException {
        if (!head.hasBody() && head.framing() == AnswerHead.Framing.CHUNKED) {
            byte[] none = new byte[1];
            if (read(none, 1) >= 0) {
                throw new MalformedAnswer("a 205 with content");
            }
        }
    }

    /**
     * Whether a read of the body failed (a reset, a close inside the framing, a malformed chunk or trailer, a silence
     * past the idle timeout): the answer ended on the engine's side, whatever the client did.
     */
    public boolean broke() {
        return broke;
    }

    /** The exchange's alarm: it watches the relay's writes to the client too. */
    IdleAlarm alarm() {
        return alarm;
    }

    /** Whether the idle alarm ended the answer: a silence, not a fault, broke the read. */
    public boolean timedOut() {
        return alarm.fired();
    }

    /**
     * Lets go of the connection: pooled if the body was read exactly and nothing past it, else closed. The relay calls
     * it as soon as the body ended, before its last write to the client, so the next request finds the connection in
     * the pool; the alarm keeps watching the client's writes until {@link #close()}.
     */
    public void release() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        // The alarm's upstream side is ended first: a check that went off as the last read returned closes the
        // connection now, not once it is pooled and carries another request.
        boolean stillOurs = alarm.endUpstream();
        // Bytes held past an answer read to its exact end: the engine wrote more than its framing said.
        boolean pastTheEnd = body.complete() && connection.hasUnread();
        if (stillOurs && requestWhole && body.complete() && head.keepsConnection() && !pastTheEnd) {
            connection.answered();
            pool.release(connection);
        } else {
            connection.close();
        }
        if (pastTheEnd) {
            connection.tellLeftover(LeftoverFound.ANSWER_END);
        }
    }

    /**
     * Ends the answer: disarms its alarm and lets go of the connection as {@link #release()} does, if that has not
     * happened yet. Called by the relay's thread when it is done with the answer, read or not.
     */
    public void close() {
        alarm.close();
        release();
    }

    /** Ends the answer from any thread by closing its connection: a blocked read fails at once. */
    public void cut() {
        alarm.close();
        if (ended.compareAndSet(false, true)) {
            connection.close();
        }
    }
}
