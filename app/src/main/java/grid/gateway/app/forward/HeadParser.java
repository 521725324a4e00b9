package grid.gateway.app.forward;

import grid.gateway.app.forward.AnswerHead.Framing;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.WritableHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Reads an upstream answer's head strictly (RFC 9112 §4, §5, §6.3; docs/design.md §H18) and decides its framing:
 *
 * <pre>
 *   status line     HTTP/1.0 or HTTP/1.1, SP, three digits, optional SP and reason; 100..599
 *   1xx but 101     interim: skipped (at most 16), the next head is read; never relayed as final; one that says
 *                   Connection: close (or upgrade), or is HTTP/1.0, ends the connection after the final answer
 *   101             refused: the gateway never asks to switch protocols
 *   field lines     a token name, a colon right after it, a value of visible or tab bytes; no folding, no CTL;
 *                   obs-text (0x80-0xFF) only in an interim head, which is never relayed
 *   framing         HEAD, 204, 304: no body whatever the fields say (a 204 announcing one: its connection is not
 *                   kept); both Content-Length and Transfer-Encoding,
 *                   a coding other than chunked alone, a Content-Length that is not one number: refused;
 *                   a 205 with content refused (it must have none; a chunked body of the last chunk alone is
 *                   none); neither field: the body ends with the connection (a 205's too, relayed without one)
 * </pre>
 *
 * <p>Every refusal is a {@link MalformedAnswer}: the gateway answers 502 and closes the connection. Bytes that cannot
 * begin a status line where the answer begins are a {@link NotThisAnswer}, which a reused connection sends again. The
 * head, the interim ones included, is at most {@link #MAX_HEAD} bytes.
 *
 * <p>Stateless and thread-safe.
 */
final class HeadParser {
    /** The most bytes of heads read for one answer, as Helidon's client allowed. */
    static final int MAX_HEAD = 16 * 1024;

    private static final int MAX_INTERIM = 16;
    private static final int STATUS_LINE_MIN = "HTTP/1.1 200".length();
    /** What every status line begins with, whatever its version. */
    private static final String STATUS_PREFIX = "HTTP/";

    private static final boolean[] TCHAR = tchars();

    private HeadParser() {}

    /** What one head said, before the framing is decided. */
    private static final class Parsed {
        int status;
        String reason = "";
        boolean http10;
        final WritableHeaders<?> headers = WritableHeaders.create();
        int contentLengths;
        long contentLength = -1;
        boolean transferEncoding;
        boolean chunkedOnly = true;
        boolean close;
        boolean upgrade;
    }

    /** Reads heads from {@code reader} until a final one, which it returns; {@code head}: the request was a HEAD. */
    static AnswerHead read(AnswerReader reader, boolean head) throws IOException {
        int budget = MAX_HEAD;
        // Whether an interim head said the connection ends after this answer, which the final head need not repeat
        // (RFC 9110 §7.6.1): an engine that said close, or spoke HTTP/1.0, on one head of an answer is not trusted
        // with the next request because another head of it says keep-alive.
        boolean interimCloses = false;
        for (int interim = 0; ; interim++) {
            Parsed parsed = new Parsed();
            budget = readOne(reader, parsed, budget, interim == 0);
            if (interim(parsed.status)) {
                if (interim == MAX_INTERIM) {
                    throw new MalformedAnswer("more than " + MAX_INTERIM + " interim answers");
                }
                interimCloses |= parsed.close || parsed.upgrade || parsed.http10;
                continue;
            }
            parsed.close |= interimCloses;
            return decide(parsed, head);
        }
    }

    /** Reads one head; {@code first}: the first of the answer, whose status line is where the answer begins. */
    private static int readOne(AnswerReader reader, Parsed parsed, int budget, boolean first) throws IOException {
        // Bytes that cannot begin a status line where the answer begins are no answer to this request (on a reused
        // connection, what an earlier answer left after the connection was found quiet): told at the first byte
        // that differs, not at a line end that may come only with the engine's answer, seconds later.
        if (first && !reader.begins(STATUS_PREFIX)) {
            throw new NotThisAnswer("bytes that cannot begin a status line where the answer begins");
        }
        int left = budget;
        int length = reader.line(Math.min(left, AnswerReader.BUFFER - 2));
        statusLine(reader.bytes(), reader.start(), length, parsed);
        left = spend(left, length);
        reader.consumeLine(length);
        while (true) {
            length = reader.line(Math.min(left, AnswerReader.BUFFER - 2));
            left = spend(left, length);
            if (length == 0) {
                reader.consumeLine(0);
                return left;
            }
            field(reader.bytes(), reader.start(), length, parsed);
            reader.consumeLine(length);
        }
    }

    private static int spend(int left, int length) throws MalformedAnswer {
        int after = left - length - 2;
        if (after < 0) {
            throw new MalformedAnswer("a head longer than " + MAX_HEAD + " bytes");
        }
        return after;
    }

    private static void statusLine(byte[] b, int s, int n, Parsed parsed) throws MalformedAnswer {
        if (n < STATUS_LINE_MIN
                || !ascii(b, s, "HTTP/1.")
                || (b[s + 7] != '0' && b[s + 7] != '1')
                || b[s + 8] != ' '
                || !digit(b[s + 9])
                || !digit(b[s + 10])
                || !digit(b[s + 11])
                || (n > STATUS_LINE_MIN && b[s + STATUS_LINE_MIN] != ' ')) {
            throw new MalformedAnswer("not an HTTP/1.1 status line");
        }
        parsed.http10 = b[s + 7] == '0';
        parsed.status = (b[s + 9] - '0') * 100 + (b[s + 10] - '0') * 10 + (b[s + 11] - '0');
        if (parsed.status < 100) {
            throw new MalformedAnswer("status " + parsed.status + " outside 100..599");
        }
        int reason = s + STATUS_LINE_MIN + 1;
        boolean relayable = true;
        for (int i = reason; i < s + n; i++) {
            if (!fieldByte(b[i])) {
                throw new MalformedAnswer("a control byte in the reason phrase");
            }
            relayable &= (b[i] & 0x80) == 0;
        }
        // A reason phrase carries nothing a client may act on (RFC 9112 §4): one with obs-text, which Helidon would
        // write as '?', gives way to the status's own phrase rather than failing the answer.
        if (reason < s + n && relayable) {
            parsed.reason = new String(b, reason, s + n - reason, StandardCharsets.ISO_8859_1);
        }
    }

    private static void field(byte[] b, int s, int n, Parsed parsed) throws MalformedAnswer {
        int colon = s;
        while (colon < s + n && b[colon] != ':') {
            if (!TCHAR[b[colon] & 0xFF]) {
                throw new MalformedAnswer("a field name that is not a token (or a folded line)");
            }
            colon++;
        }
        if (colon == s || colon == s + n) {
            throw new MalformedAnswer("a field line without a name or a colon");
        }
        int from = colon + 1;
        int to = s + n;
        while (from < to && (b[from] == ' ' || b[from] == '\t')) {
            from++;
        }
        while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) {
            to--;
        }
        for (int i = from; i < to; i++) {
            if (!fieldByte(b[i])) {
                throw new MalformedAnswer("a control byte in a field value");
            }
            if ((b[i] & 0x80) != 0 && !interim(parsed.status)) {
                // RFC 9110 §5.5 obs-text: Helidon writes header values as US-ASCII, each such byte as '?', so the
                // field cannot be relayed as it came; refused as the gateway refuses it from a client. An interim
                // head is never relayed: its fields are read and dropped, obs-text or not.
                throw new MalformedAnswer("obs-text (a byte 0x80-0xFF) in a field value");
            }
        }
        String name = new String(b, s, colon - s, StandardCharsets.US_ASCII);
        String value = new String(b, from, to - from, StandardCharsets.ISO_8859_1);
        framingField(name, value, parsed);
        if (name.equalsIgnoreCase("content-length")) {
            // Relayed as its value: the leading zeros RFC 9112 allows are refused by some clients and proxies.
            value = Long.toString(parsed.contentLength);
        }
        parsed.headers.add(HeaderValues.create(HeaderNames.create(name), value));
    }

    /** Notes what a field says about the framing and the connection. */
    private static void framingField(String name, String value, Parsed parsed) throws MalformedAnswer {
        if (name.equalsIgnoreCase("content-length")) {
            parsed.contentLengths++;
            parsed.contentLength = contentLength(value);
        } else if (name.equalsIgnoreCase("transfer-encoding")) {
            // Only "chunked" alone, in one field, is a framing the gateway reads and relays (RFC 9112 §6.1): another
            // coding, or chunked twice, is refused.
            parsed.chunkedOnly &= !parsed.transferEncoding && value.equalsIgnoreCase("chunked");
            parsed.transferEncoding = true;
        } else if (name.equalsIgnoreCase("connection")) {
            for (String option : value.split(",", -1)) {
                String token = option.strip().toLowerCase(Locale.ROOT);
                parsed.close |= token.equals("close");
                parsed.upgrade |= token.equals("upgrade");
            }
        }
    }

    private static long contentLength(String value) throws MalformedAnswer {
        if (value.isEmpty()) {
            throw new MalformedAnswer("a Content-Length that is not one number");
        }
        long length = 0;
        int significant = 0; // digits from the first that is not a leading zero: 18 fit a long
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new MalformedAnswer("a Content-Length that is not one number");
            }
            length = length * 10 + (c - '0');
            if (length > 0 && ++significant > 18) {
                throw new MalformedAnswer("a Content-Length that is not one number");
            }
        }
        return length;
    }

    /** The framing of a final head, or why it cannot be relayed. */
    private static AnswerHead decide(Parsed p, boolean head) throws MalformedAnswer {
        if (p.status == 101) {
            throw new MalformedAnswer("101 Switching Protocols, which the gateway never asks for");
        }
        if (p.status > 599) {
            throw new MalformedAnswer("status " + p.status + " outside 100..599");
        }
        if (p.transferEncoding && p.contentLengths > 0) {
            throw new MalformedAnswer("both Content-Length and Transfer-Encoding");
        }
        if (p.transferEncoding && (!p.chunkedOnly || p.http10)) {
            throw new MalformedAnswer("a transfer coding other than chunked alone");
        }
        if (p.contentLengths > 1) {
            throw new MalformedAnswer("more than one Content-Length");
        }
        Framing framing;
        if (head || p.status == 204 || p.status == 304) {
            framing = Framing.NONE;
        } else if (p.status == 205) {
            // RFC 9110 §15.3.6: a 205 has no content: a Content-Length of 0, a chunked body of the last chunk alone
            // (read to its end: AnswerBody refuses a chunk with data), or neither field, the body then ending with
            // the connection (RFC 9112 §6.3; its server closes it after the head), which is not read but closed. One
            // that announces content cannot be relayed as it is.
            if (p.contentLength > 0) {
                throw new MalformedAnswer("a 205 with content");
            }
            if (p.transferEncoding) {
                framing = Framing.CHUNKED;
            } else {
                framing = p.contentLengths == 0 ? Framing.UNTIL_CLOSE : Framing.NONE;
            }
        } else if (p.transferEncoding) {
            framing = Framing.CHUNKED;
        } else if (p.contentLengths == 1) {
            framing = Framing.LENGTH;
        } else {
            framing = Framing.UNTIL_CLOSE;
        }
        long length = framing == Framing.LENGTH ? p.contentLength : -1;
        // A 204 must not announce a body (RFC 9110 §8.6, RFC 9112 §6.1); one that does may write it after the head
        // (a framework's 204 with the body "null", sent apart): bytes the next request on the connection would read as
        // the start of its answer. It is relayed without them and its connection closed.
        boolean announcesBody = p.status == 204 && (p.transferEncoding || p.contentLength > 0);
        boolean keeps = !p.http10 && !p.close && !p.upgrade && framing != Framing.UNTIL_CLOSE && !announcesBody;
        return new AnswerHead(p.status, p.reason, p.headers, framing, length, keeps);
    }

    /** Whether a head of {@code status} is an interim one, skipped and never relayed: a 1xx but 101. */
    private static boolean interim(int status) {
        return status >= 100 && status < 200 && status != 101;
    }

    /** A byte RFC 9110 §5.5 lets a field value or reason phrase hold: HTAB, SP, visible ASCII, obs-text. */
    private static boolean fieldByte(byte b) {
        int c = b & 0xFF;
        return c == '\t' || (c >= 0x20 && c != 0x7F);
    }

    private static boolean digit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static boolean ascii(byte[] b, int s, String text) {
        for (int i = 0; i < text.length(); i++) {
            if (b[s + i] != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean[] tchars() {
        boolean[] t = new boolean[256];
        for (char c = '0'; c <= '9'; c++) {
            t[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            t[c] = true;
            t[Character.toUpperCase(c)] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            t[c] = true;
        }
        return t;
    }
}
