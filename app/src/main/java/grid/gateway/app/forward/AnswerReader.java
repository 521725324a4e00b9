package grid.gateway.app.forward;

import grid.gateway.routing.time.MonotonicClock;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The read side of one upstream connection: a buffer over the socket's input, from which answer heads are parsed line
 * by line and bodies are read. It never hides a byte: what was read past the end of an answer stays {@link #buffered()},
 * so the connection is pooled only when nothing is (docs/design.md §H18).
 *
 * <p>Lines end with CRLF; a bare CR or LF is refused (RFC 9112 §2.2 lets a recipient refuse them), as is a line longer
 * than its limit. Body reads take the buffer first, then read the socket straight into the caller's array, never more
 * than asked, so a Content-Length body is never read past its end.
 *
 * <p>Not thread-safe; owned by the thread of the exchange in progress.
 */
final class AnswerReader {
    /** The buffer: the longest line an answer may hold (a header field, a chunk size with its extensions). */
    static final int BUFFER = 8 * 1024;

    private final InputStream in;
    private final Socket socket;
    /** The TCP socket under {@link #socket}: itself on a plain connection, the one a TLS socket is layered over. */
    private final Socket tcp;

    private final byte[] buffer = new byte[BUFFER];
    private int pos;
    private int limit;
    /** Bytes read from the socket since {@link #beginExchange()}: 0 means the answer had not started. */
    private long received;
    /** The clock of the head's deadline; null while reading without one. */
    private @Nullable MonotonicClock deadlineClock;

    private long deadline;
    /** The socket's own read timeout, restored when the deadline is lifted. */
    private int readTimeout;

    /** A reader of {@code socket}'s answers; {@code tcp} is the TCP socket it is (plain) or is layered over (TLS). */
    AnswerReader(Socket socket, Socket tcp) throws IOException {
        this.socket = socket;
        this.tcp = tcp;
        this.in = socket.getInputStream();
    }

    /**
     * Until {@link #noDeadline()}, the reads that fill the buffer end within {@code timeout} of now on {@code clock}:
     * a head that trickles in is cut like a silent one.
     */
    void deadline(MonotonicClock clock, Duration timeout) throws IOException {
        readTimeout = socket.getSoTimeout();
        deadlineClock = clock;
        deadline = clock.nanoTime() + timeout.toNanos();
    }

    /** Reads wait the socket's own read timeout again. */
    void noDeadline() throws IOException {
        if (deadlineClock != null) {
            deadlineClock = null;
            socket.setSoTimeout(readTimeout);
        }
    }

    /** A new request was sent: the next byte read is its answer's first. */
    void beginExchange() {
        received = 0;
    }

    /** Bytes of the current answer read from the socket so far (buffered ones included). */
    long received() {
        return received;
    }

    /** Bytes read from the socket and not yet consumed. */
    int buffered() {
        return limit - pos;
    }

    /**
     * Reads until the unconsumed bytes hold as many as {@code text} or differ from it, and says whether they begin
     * with it: false as soon as one byte differs, whatever comes after it.
     *
     * @throws EOFException if the connection ends first
     */
    boolean begins(String text) throws IOException {
        while (true) {
            int n = Math.min(limit - pos, text.length());
            for (int i = 0; i < n; i++) {
                if (buffer[pos + i] != text.charAt(i)) {
                    return false;
                }
            }
            if (n == text.length()) {
                return true;
            }
            if (!fill()) {
                throw new EOFException(received == 0 ? "closed before the answer" : "closed inside the answer's head");
            }
        }
    }

    /** The buffer; a line returned by {@link #line} is {@code bytes()[start(), start() + length)}. */
    byte[] bytes() {
        return buffer;
    }

    /** Where the next unconsumed byte is in {@link #bytes()}. */
    int start() {
        return pos;
    }

    /**
     * Makes the next line available at {@link #start()} and returns its length without the CRLF; {@link #consumeLine}
     * then moves past it.
     *
     * @throws MalformedAnswer if the line is longer than {@code max} or holds a bare CR or LF
     * @throws EOFException if the connection ends first
     */
    int line(int max) throws IOException {
        int scanned = 0; // bytes of the line already looked at, from pos
        while (true) {
            for (int i = pos + scanned; i < limit; i++) {
                byte b = buffer[i];
                if (b == '\n') {
                    if (i == pos || buffer[i - 1] != '\r') {
                        throw new MalformedAnswer("a line ends with a bare LF");
                    }
                    // The limit holds however the line came: whole in one read, or over several.
                    if (i - 1 - pos > max) {
                        throw new MalformedAnswer("a line longer than " + max + " bytes");
                    }
                    return i - 1 - pos;
                }
                if (b == '\r' && i + 1 < limit && buffer[i + 1] != '\n') {
                    throw new MalformedAnswer("a bare CR inside a line");
                }
            }
            // A CR at the end is looked at again once the byte after it has come.
            scanned = Math.max(0, limit - pos - 1);
            if (limit - pos > max + 1) {
                throw new MalformedAnswer("a line longer than " + max + " bytes");
            }
            if (!fill()) {
                // Lines are the head's, and a chunked body's size lines and trailers.
                throw new EOFException(
                        received == 0 ? "closed before the answer" : "closed inside a line of the answer");
            }
        }
    }

    /** Moves past the line of {@code length} bytes {@link #line} returned, and its CRLF. */
    void consumeLine(int length) {
        pos += length + 2;
    }

    /**
     * Reads at most {@code length} body bytes into {@code target}: buffered ones first, else one read of the socket.
     *
     * @return the count read, or -1 at the end of the stream
     */
    int read(byte[] target, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (pos < limit) {
            int n = Math.min(length, limit - pos);
            System.arraycopy(buffer, pos, target, offset, n);
            pos += n;
            return n;
        }
        int n = in.read(target, offset, length);
        if (n > 0) {
            received += n;
        }
        return n;
    }

    /**
     * Whether the end of the stream just read is an end the engine sent: over plain TCP its FIN; over TLS its
     * close_notify (RFC 8446 §6.1), not a TCP end without one, which a crashed engine's kernel or a middlebox that cuts
     * the connection makes. The JDK's TLS socket reads both as the end of the stream; only for a TCP end without
     * close_notify does it shut the TCP socket's input itself (a close_notify leaves it open), which is what is read
     * here. {@code UpstreamFaultsOverTlsIntegrationTest} holds the JDK to it.
     */
    boolean endSentByTheEngine() {
        return tcp == socket || !tcp.isInputShutdown();
    }

    /** Reads more into the buffer; false at the end of the stream. */
    private boolean fill() throws IOException {
        if (pos == limit) {
            pos = 0;
            limit = 0;
        } else if (limit == buffer.length) {
            System.arraycopy(buffer, pos, buffer, 0, limit - pos);
            limit -= pos;
            pos = 0;
        }
        if (limit == buffer.length) {
            throw new MalformedAnswer("a line longer than the buffer");
        }
        MonotonicClock clock = deadlineClock;
        if (clock != null) {
            long left = deadline - clock.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("no answer head within the first-byte timeout");
            }
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, (left + 999_999) / 1_000_000)));
        }
        int n = in.read(buffer, limit, buffer.length - limit);
        if (n < 0) {
            return false;
        }
        limit += n;
        received += n;
        return true;
    }
}
