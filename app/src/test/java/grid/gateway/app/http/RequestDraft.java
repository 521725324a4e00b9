package grid.gateway.app.http;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Test fixture: one client request being generated for {@link ClientRequestsPropertyTest}, as text whose every char
 * is one byte (ISO-8859-1): its request line, its header lines as written (a line may hold any byte), its body and how
 * it is framed (a {@code Content-Length}, chunks, or neither), and bytes written after it. {@link RequestOddities}
 * changes any part; {@link #wire} writes it.
 */
final class RequestDraft {
    /** How the body is framed on the wire. */
    enum Framing {
        NONE,
        LENGTH,
        CHUNKED
    }

    String method;
    String target;
    String version = "HTTP/1.1";
    /** Header lines without their line end; {@link #lineEnds} holds each one's. */
    final List<String> fields = new ArrayList<>();

    final List<String> lineEnds = new ArrayList<>();
    /** The body's bytes, one char a byte. */
    String body;

    Framing framing;
    /** The chunks' size lines as written (without CRLF), one a chunk; null: each chunk's size in hex. */
    List<String> sizeLines;
    /** The chunks' data, which together make {@link #body}. */
    final List<String> chunks = new ArrayList<>();
    /** What comes between the last chunk and the blank line ending a chunked body: trailer lines, each with CRLF. */
    String trailers = "";
    /** The separator after each chunk's data (CRLF unless a case says otherwise). */
    String afterChunk = "\r\n";
    /** Bytes written after the request, which no framing covers. */
    String tail = "";
    /** The whole request replaced by these bytes when set. */
    String raw;

    RequestDraft(String method, String target, String body) {
        this.method = method;
        this.target = target;
        this.body = body;
        this.framing = body.isEmpty() ? Framing.NONE : Framing.LENGTH;
    }

    void field(String line) {
        fields.add(line);
        lineEnds.add("\r\n");
    }

    /** Removes every field whose name is {@code name} (any case), returns how many. */
    int remove(String name) {
        int removed = 0;
        for (int i = fields.size() - 1; i >= 0; i--) {
            String line = fields.get(i);
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                fields.remove(i);
                lineEnds.remove(i);
                removed++;
            }
        }
        return removed;
    }

    /** Whether a body follows the head on the wire (what a server must read or drain). */
    boolean hasBody() {
        return framing != Framing.NONE;
    }

    /** Frames the body in chunks of random sizes. */
    void chunked(SplittableRandom random) {
        remove("Content-Length");
        if (framing != Framing.CHUNKED) {
            field("Transfer-Encoding: chunked");
        }
        framing = Framing.CHUNKED;
        chunks.clear();
        int at = 0;
        while (at < body.length()) {
            int size = 1 + random.nextInt(Math.max(1, body.length() - at));
            chunks.add(body.substring(at, at + Math.min(size, body.length() - at)));
            at += chunks.getLast().length();
        }
    }

    /** The request's bytes. */
    String wire() {
        if (raw != null) {
            return raw + tail;
        }
        StringBuilder out =
                new StringBuilder(method).append(' ').append(target).append(' ').append(version);
        out.append("\r\n");
        for (int i = 0; i < fields.size(); i++) {
            out.append(fields.get(i)).append(lineEnds.get(i));
        }
        out.append("\r\n");
        if (framing == Framing.CHUNKED) {
            for (int i = 0; i < chunks.size(); i++) {
                String size =
                        sizeLines == null ? Integer.toHexString(chunks.get(i).length()) : sizeLines.get(i);
                out.append(size).append("\r\n").append(chunks.get(i)).append(afterChunk);
            }
            out.append("0\r\n").append(trailers).append("\r\n");
        } else {
            out.append(body);
        }
        return out.append(tail).toString();
    }

    /** Where the body begins in {@link #wire} (its head's length). */
    int headLength() {
        String wire = wire();
        int end = wire.indexOf("\r\n\r\n");
        return end < 0 ? wire.length() : end + 4;
    }
}
