package grid.gateway.app.http;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ServerConnectionException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Helidon's reader of a connection's bytes, remembering the array its last {@code readBytes} returned. It reads
 * the socket as Helidon's own reader does, after the bytes Helidon read to choose the protocol.
 *
 * <p>It also bounds what a chunked request body makes Helidon hold: Helidon 4.5 reads each chunk with one
 * {@code readBuffer} of the chunk's announced size, which gathers the whole chunk from the socket before the
 * handler sees a byte of it, so a chunk announced as 2 GiB would be held whole, past {@code max_body_bytes} and the
 * body budget, for as long as the client takes to send it. Helidon's other {@code readBuffer} (a
 * {@code Content-Length} body) never asks for more than is already held; a request for more than that and more
 * than the body limit in force can only be such a chunk, and is refused ({@link ChunkOverLimit}: 413) before any of
 * it is read; the connection's bytes end there, so that nothing reads the refused chunk's data as more of the
 * body or as a next request. A line Helidon reads without a limit (a chunk size line) is looked for within
 * {@link #UNENDED_LINE} bytes.
 *
 * <p>The receive listeners tell it where Helidon parsed a request line and a head's fields ({@link #parsed}), so that
 * a failure of Helidon's parser on a request line can be told from any other failure ({@link #unparsedMethod}), and
 * so that empty lines before a request line are skipped ({@link #findNewLine}), which Helidon's parser would refuse.
 *
 * <p>A request line whose target is in absolute form is handed to Helidon in its origin form ({@link AbsoluteForm}).
 *
 * <p>Not thread-safe: a connection's reader is used by its own thread only.
 */
final class KeepingReader extends DataReader {
    /** The longest line looked for where Helidon sets no limit: a chunk size line is a few bytes. */
    static final int UNENDED_LINE = 8 * 1024;
    /** How much of a line over its limit is kept: enough for a method and an API path. */
    static final int KEPT_START = 256;
    /**
     * Helidon's limit of a request line ({@code Http1Config.maxPrologueLength}, left at its default on both
     * listeners): outside a head's fields, only the read of a request line looks for a line's end within it.
     */
    static final int REQUEST_LINE_LIMIT = 4096;

    private final SocketBytes bytes;
    private final LongSupplier maxBodyBytes;
    private final @Nullable BodyBudget budget;
    /** Whether a request line naming HTTP/1.0 is read as HTTP/1.1 ({@link AdminHttp10}): the admin listener's. */
    private final boolean acceptsHttp10;
    /** Whether the last request line read named HTTP/1.0. */
    private boolean http10;

    private byte[] lastRead = new byte[0];
    /** The last line a parsed head accounts for: the request line, or the last field once all were read. */
    private byte[] accounted = lastRead;
    /** Whether a head's request line was parsed and its fields are being read. */
    private boolean inFields;

    // DataReader's constructor is deprecated for removal in favour of DataReader.create, which cannot be
    // subclassed; the class itself stays public and open in Helidon 4.5.
    @SuppressWarnings({"removal", "NullAway"}) // Helidon's reader takes a supplier's null as the end of the bytes
    private KeepingReader(
            SocketBytes bytes, LongSupplier maxBodyBytes, @Nullable BodyBudget budget, boolean acceptsHttp10) {
        super(bytes);
        this.bytes = bytes;
        this.maxBodyBytes = maxBodyBytes;
        this.budget = budget;
        this.acceptsHttp10 = acceptsHttp10;
    }

    /**
     * A reader of {@code ctx}'s socket that first gives what Helidon's reader already holds; when
     * {@code acceptsHttp10}, it reads a request line naming HTTP/1.0 as HTTP/1.1 ({@link AdminHttp10}).
     */
    static KeepingReader over(
            ConnectionContext ctx, LongSupplier maxBodyBytes, @Nullable BodyBudget budget, boolean acceptsHttp10) {
        DataReader helidons = ctx.dataReader();
        int held = helidons.available();
        return new KeepingReader(
                new SocketBytes(ctx.serverSocket(), held > 0 ? helidons.readBytes(held) : null),
                maxBodyBytes,
                budget,
                acceptsHttp10);
    }

    @Override
    public byte[] readBytes(int len) {
        byte[] read = super.readBytes(len);
        if (!inFields) {
            // Outside a head's fields, Helidon reads only a request line with readBytes (a body is read by buffer).
            if (acceptsHttp10) {
                http10 = AdminHttp10.readAsHttp11(read);
            }
            read = AbsoluteForm.asOriginForm(read);
        }
        lastRead = read;
        return read;
    }

    /** Whether the request line read last named HTTP/1.0 (always false unless the reader accepts HTTP/1.0). */
    boolean http10() {
        return http10;
    }

    /**
     * Helidon's {@code readLine} (a chunk size line, the line that ends a chunked body) looks for the line's end
     * with no limit, so a line that never ends would be held for as long as it comes: it is looked for within
     * {@link #UNENDED_LINE} bytes, and a longer one read as that many (it then fails as a chunk size: 400).
     * Every other caller gives its own limit. Empty lines before a request line are skipped first
     * ({@link #skipEmptyLines}).
     */
    @Override
    public int findNewLine(int max) throws IncorrectNewLineException {
        if (max == REQUEST_LINE_LIMIT && !inFields) {
            skipEmptyLines();
        }
        int limit = max == Integer.MAX_VALUE ? UNENDED_LINE : max;
        int found = super.findNewLine(limit);
        if (found == limit && available() > 0) {
            // A line over its limit, refused unread: its start is kept, so that a request line's refusal (414)
            // can name the API its target lies under.
            byte[] start = new byte[Math.min(available(), Math.min(limit, KEPT_START))];
            getBuffer(start.length).read(start);
            OverlongLine.keep(start);
        }
        return found;
    }

    /**
     * Skips the empty lines (CRLF) in front of a request line, up to {@link #REQUEST_LINE_LIMIT} bytes of them: RFC
     * 9112 §2.2 asks a server to ignore at least one, as some clients send a CRLF after a request's body, which would
     * otherwise be read as the next request line and refuse a valid request behind it (400, the connection closed).
     * A bare LF is not skipped (the gateway reads CRLF only); more empty lines than the limit are read as they come,
     * so the next one is a request line Helidon refuses. Outside a head's fields only a request line is read with
     * that limit: Helidon 4.5 parses fields (whose values may be empty) only in a head, and reads a chunked body's
     * lines with {@code readLine} (no limit).
     */
    private void skipEmptyLines() {
        for (int skipped = 0; skipped < REQUEST_LINE_LIMIT && startsWithNewLine(); skipped += 2) {
            skip(2);
        }
    }

    @Override
    public BufferData readBuffer(int length) {
        if (length <= available()) {
            return super.readBuffer(length);
        }
        long limit = maxBodyBytes.getAsLong();
        if (length > limit) {
            // The connection cannot carry another request: what follows is the refused chunk's data.
            bytes.end();
            throw new ChunkOverLimit(length, limit);
        }
        if (budget == null) {
            return super.readBuffer(length);
        }
        // Gathered whole before the body's reader sees a byte of it, so counted while it is: many connections
        // each sending a chunk just under the limit would otherwise hold what the budget exists to bound. Given
        // back once gathered; the body's reader then reserves its own copy.
        if (!budget.tryReserve(length)) {
            bytes.end();
            throw new ChunkOverBudget(length);
        }
        try {
            return super.readBuffer(length);
        } finally {
            budget.release(length);
        }
    }

    byte[] lastRead() {
        return lastRead;
    }

    /** Helidon parsed a request line ({@code fieldsNext}) or a head's fields: every line read so far is one. */
    void parsed(boolean fieldsNext) {
        accounted = lastRead;
        inFields = fieldsNext;
    }

    /**
     * The method of the last line read, when that line is a request line Helidon's parser failed on: no parsed head
     * accounts for it, no head's fields were being read, and its method (up to its first space) is not a token
     * (RFC 9110 §5.6.2), which Helidon's {@code Method.create} throws on.
     */
    Optional<String> unparsedMethod() {
        if (inFields || lastRead == accounted) {
            return Optional.empty();
        }
        int space = 0;
        while (space < lastRead.length && lastRead[space] != ' ') {
            space++;
        }
        if (space == 0 || space == lastRead.length) {
            return Optional.empty();
        }
        for (int i = 0; i < space; i++) {
            if (!token(lastRead[i])) {
                return Optional.of(new String(lastRead, 0, space, StandardCharsets.ISO_8859_1));
            }
        }
        return Optional.empty();
    }

    /** Whether {@code b} is a tchar of RFC 9110 §5.6.2. */
    private static boolean token(byte b) {
        return (b >= 'a' && b <= 'z')
                || (b >= 'A' && b <= 'Z')
                || (b >= '0' && b <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(b) >= 0;
    }

    /** A connection's bytes: first those Helidon read to choose the protocol, then each read of the socket. */
    private static final class SocketBytes implements Supplier<byte @Nullable []> {
        private final HelidonSocket socket;
        private byte @Nullable [] held;
        private boolean ended;

        SocketBytes(HelidonSocket socket, byte @Nullable [] held) {
            this.socket = socket;
            this.held = held;
        }

        /**
         * Gives no more bytes: each later read finds the connection at its end at once (Helidon's reader then throws),
         * so nothing waits on the rest of a request the gateway refused, such as the stream's close reading the rest
         * of a chunked body for the next request.
         */
        void end() {
            ended = true;
        }

        @Override
        public byte @Nullable [] get() {
            if (ended) {
                return null;
            }
            byte[] first = held;
            if (first != null) {
                held = null;
                return first;
            }
            byte[] read;
            try {
                read = socket.get();
            } catch (UncheckedIOException e) {
                RequestLineKeeper.streamEnded();
                // As Helidon's own reader maps a failed socket read.
                throw new ServerConnectionException("Failed to get data from socket", e);
            }
            if (read == null) {
                RequestLineKeeper.streamEnded();
            }
            return read;
        }
    }
}
