package grid.gateway.app.forward;

import grid.gateway.app.forward.AnswerHead.Framing;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * The body of one upstream answer as the relay reads it: exactly the bytes its framing delimits, then -1 (RFC 9112
 * §6, §7.1).
 *
 * <pre>
 *   LENGTH        Content-Length bytes; the connection ending first is an error
 *   CHUNKED       size line (hex, then any chunk extension, which is ignored) CRLF, data, CRLF, ...; the last chunk
 *                 (size 0), then trailer fields, read and discarded, up to the blank line
 *   UNTIL_CLOSE   everything until the connection ends: over TLS, with the engine's close_notify (a TCP end without one
 *                 is an error, as a cut)
 *   NONE          nothing
 * </pre>
 *
 * <p>{@link #complete()} says whether the body was read to its exact end; only then may its connection carry another
 * request, and only if nothing was read past that end ({@link AnswerReader#buffered()}).
 *
 * <p>Not thread-safe; one per answer, read by the relay's thread.
 */
final class AnswerBody extends InputStream {
    /** The longest chunk size line, extensions included, and the most bytes of trailer fields. */
    private static final int MAX_LINE = 4096;

    private static final int MAX_TRAILERS = HeadParser.MAX_HEAD;
    /** Hex digits in a chunk size after its leading zeros: 15 fit a long with room. */
    private static final int MAX_SIZE_DIGITS = 15;

    private final AnswerReader reader;
    private final Framing framing;
    /** Bytes left in the body (LENGTH) or the current chunk (CHUNKED); -1 before the first chunk's size. */
    private long left;

    private boolean complete;
    /** A 205's body, which may frame no content (RFC 9110 §15.3.6): a chunk with data is refused. */
    private final boolean noContent;

    AnswerBody(AnswerReader reader, AnswerHead head) {
        this.reader = reader;
        this.framing = head.framing();
        this.noContent = head.status() == 205;
        this.left = framing == Framing.LENGTH ? head.length() : -1;
        this.complete = framing == Framing.NONE || (framing == Framing.LENGTH && left == 0);
    }

    /** Whether the body was read to its exact end (and a chunked body's trailers with it). */
    boolean complete() {
        return complete;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] target, int offset, int length) throws IOException {
        if (complete) {
            return -1;
        }
        if (length == 0) {
            return 0;
        }
        return switch (framing) {
            case LENGTH -> readLength(target, offset, length);
            case CHUNKED -> readChunked(target, offset, length);
            case UNTIL_CLOSE -> readUntilClose(target, offset, length);
            case NONE -> -1;
        };
    }

    private int readLength(byte[] target, int offset, int length) throws IOException {
        int n = reader.read(target, offset, (int) Math.min(length, left));
        if (n < 0) {
            throw new EOFException("the connection ended " + left + " bytes before the announced length");
        }
        left -= n;
        complete = left == 0;
        return n;
    }

    private int readUntilClose(byte[] target, int offset, int length) throws IOException {
        int n = reader.read(target, offset, length);
        if (n < 0) {
            if (!reader.endSentByTheEngine()) {
                // A TLS connection's TCP end without close_notify: the body may have been cut anywhere.
                throw new EOFException("the TLS connection ended without the engine's close_notify");
            }
            complete = true;
        }
        return n;
    }

    private int readChunked(byte[] target, int offset, int length) throws IOException {
        if (left <= 0) {
            if (left == 0) {
                crlf();
            }
            left = chunkSize();
            if (left > 0 && noContent) {
                throw new MalformedAnswer("a 205 with content");
            }
            if (left == 0) {
                trailers();
                complete = true;
                return -1;
            }
        }
        int n = reader.read(target, offset, (int) Math.min(length, left));
        if (n < 0) {
            throw new EOFException("the connection ended inside a chunk");
        }
        left -= n;
        return n;
    }

    /** The CRLF after a chunk's data. */
    private void crlf() throws IOException {
        if (reader.line(0) != 0) {
            throw new MalformedAnswer("chunk data longer than its size");
        }
        reader.consumeLine(0);
    }

    /** A chunk size line: hex digits, then optionally white space and extensions, which are ignored. */
    private long chunkSize() throws IOException {
        int length = reader.line(MAX_LINE);
        byte[] b = reader.bytes();
        int s = reader.start();
        long size = 0;
        int digits = 0;
        int significant = 0; // digits from the first that is not a leading zero: RFC 9112 §7.1 allows any number
        while (digits < length && hex(b[s + digits]) >= 0) {
            size = size * 16 + hex(b[s + digits]);
            digits++;
            if (size > 0) {
                significant++;
            }
        }
        if (digits == 0 || significant > MAX_SIZE_DIGITS) {
            throw new MalformedAnswer("a chunk size that is not a hex number");
        }
        int rest = s + digits;
        while (rest < s + length && (b[rest] == ' ' || b[rest] == '\t')) {
            rest++;
        }
        if (rest < s + length && b[rest] != ';') {
            throw new MalformedAnswer("a chunk size followed by something other than an extension");
        }
        for (int i = rest; i < s + length; i++) {
            int c = b[i] & 0xFF;
            if (c != '\t' && (c < 0x20 || c == 0x7F)) {
                throw new MalformedAnswer("a control byte in a chunk extension");
            }
        }
        reader.consumeLine(length);
        return size;
    }

    /** Trailer fields after the last chunk: each must be a field line; all are dropped (RFC 9112 §7.1.2). */
    private void trailers() throws IOException {
        int budget = MAX_TRAILERS;
        while (true) {
            int length = reader.line(Math.min(budget, MAX_LINE));
            budget -= length + 2;
            if (length == 0) {
                reader.consumeLine(0);
                return;
            }
            if (budget < 0 || !fieldLine(reader.bytes(), reader.start(), length)) {
                throw new MalformedAnswer("a malformed trailer section");
            }
            reader.consumeLine(length);
        }
    }

    private static boolean fieldLine(byte[] b, int s, int n) {
        int colon = s;
        while (colon < s + n && b[colon] != ':') {
            byte c = b[colon];
            if (c <= ' ' || c == 0x7F) {
                return false;
            }
            colon++;
        }
        if (colon == s || colon == s + n) {
            return false;
        }
        for (int i = colon + 1; i < s + n; i++) {
            int c = b[i] & 0xFF;
            if (c != '\t' && (c < 0x20 || c == 0x7F)) {
                return false;
            }
        }
        return true;
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }
}
