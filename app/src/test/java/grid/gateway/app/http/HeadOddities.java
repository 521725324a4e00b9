package grid.gateway.app.http;

import grid.gateway.app.http.GeneratedAnswers.Effect;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Test fixture: the odd status lines, header fields, framing fields and trailers an engine may write, each with what
 * the gateway must make of it (RFC 9112 and docs/design.md §H18), for {@link GeneratedAnswers}.
 */
final class HeadOddities {
    private HeadOddities() {}

    /**
     * A status line and extra fields: {@code line} with {@code %d} for the status, then {@code fields}; {@code http10}:
     * the answer is HTTP/1.0; {@code encoded}: it announces a content coding.
     */
    record Odd(String name, String line, String fields, Effect effect, boolean http10, boolean encoded) {
        String statusLine(int status) {
            return line.formatted(status);
        }

        /** Whether the head says its connection ends after the answer: HTTP/1.0, or Connection: close or upgrade. */
        boolean closes() {
            for (String field : fields.toLowerCase(java.util.Locale.ROOT).split("\r\n")) {
                if (field.startsWith("connection:") && (field.contains("close") || field.contains("upgrade"))) {
                    return true;
                }
            }
            return http10;
        }
    }

    /** Framing fields, or trailer lines, and what they make of the answer. */
    record Framing(String lines, Effect effect) {}

    /**
     * One interim (1xx) head: its bytes, whether it says the connection ends after the final answer (RFC 9110 §7.6.1:
     * {@code Connection: close} or {@code upgrade}, or HTTP/1.0), and what it makes of the answer.
     */
    record Interim(String head, boolean closes, Effect effect) {
        /** How many interim heads it is. */
        int heads() {
            return head.split("\r\n\r\n", -1).length - 1;
        }
    }

    /** The most interim heads the gateway reads before a final one (HeadParser). */
    static final int MOST_INTERIM = 16;

    private static final List<Interim> INTERIMS = List.of(
            new Interim("HTTP/1.1 100 Continue\r\n\r\n", false, Effect.RELAYED),
            new Interim("HTTP/1.1 102 Processing\r\n\r\n", false, Effect.RELAYED),
            new Interim(
                    "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\nLink: </b.js>; rel=preload\r\n\r\n",
                    false,
                    Effect.RELAYED),
            new Interim("HTTP/1.1 150 Interim\r\n\r\n", false, Effect.RELAYED),
            new Interim("HTTP/1.1 199\r\n\r\n", false, Effect.RELAYED),
            new Interim("HTTP/1.1 103 Early Hints\r\nX-Obs: caf\u00e9\r\n\r\n", false, Effect.RELAYED),
            new Interim("HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\n", false, Effect.RELAYED),
            new Interim("HTTP/1.1 103 Early Hints\r\nTransfer-Encoding: chunked\r\n\r\n", false, Effect.RELAYED),
            new Interim("HTTP/1.1 100 Continue\r\nConnection: close\r\n\r\n", true, Effect.RELAYED),
            new Interim("HTTP/1.1 103 Early Hints\r\nConnection: Upgrade\r\n\r\n", true, Effect.RELAYED),
            new Interim("HTTP/1.0 100 Continue\r\n\r\n", true, Effect.RELAYED),
            new Interim("HTTP/1.1 100 Continue\r\nX-F: a\r\n b\r\n\r\n", false, Effect.REFUSED),
            new Interim("HTTP/1.1 100 Continue\r\nX-Nul: a\u0000b\r\n\r\n", false, Effect.REFUSED),
            new Interim("HTTP/1.1 100 Continue\n\n", false, Effect.REFUSED),
            new Interim("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", false, Effect.REFUSED),
            new Interim("HTTP/1.1 100 Continue\r\n\r\n".repeat(17), false, Effect.REFUSED),
            new Interim("HTTP/1.1 100 Continue\r\n\r\n".repeat(16), false, Effect.RELAYED));

    /** An interim head, of the usual kinds or not. */
    static Interim interim(SplittableRandom random) {
        return INTERIMS.get(random.nextInt(INTERIMS.size()));
    }

    /**
     * The size line of a chunk of {@code size} bytes as an engine may write it: lower or upper case hex, leading zeros,
     * extensions, white space before them (RFC 9112 §7.1: BWS).
     */
    static String sizeLine(SplittableRandom random, int size) {
        String hex = Integer.toHexString(size);
        return switch (random.nextInt(10)) {
            case 0 -> "000" + hex + "\r\n";
            case 1 -> hex.toUpperCase(java.util.Locale.ROOT) + "\r\n";
            case 2 -> hex + ";ext=" + random.nextInt(100) + "\r\n";
            case 3 -> hex + " \t;a=\"q;\\\"x\";b\r\n";
            case 4 -> hex + ";e\u00e9\r\n";
            default -> hex + "\r\n";
        };
    }

    /** The last chunk's line as an engine may write it. */
    static String lastChunk(SplittableRandom random) {
        return switch (random.nextInt(8)) {
            case 0 -> "0000\r\n";
            case 1 -> "0;last=1\r\n";
            case 2 -> "0 ;x\r\n";
            default -> "0\r\n";
        };
    }

    /**
     * A chunk that breaks the framing, written in place of the chunk of {@code hex} size and its {@code data}: a size
     * that overflows, is signed, prefixed or followed by something other than an extension, a size line that ends
     * with a bare LF or holds a control byte, data longer than its size, or data followed by something other than
     * CRLF. The answer is cut there (the gateway's 502 or the client's answer cut short).
     */
    static String brokenChunk(SplittableRandom random, String hex, String data) {
        return switch (random.nextInt(10)) {
            case 0 -> "1" + "0".repeat(16) + hex + "\r\n" + data + "\r\n";
            case 1 -> "-" + hex + "\r\n" + data + "\r\n";
            case 2 -> "0x" + hex + "\r\n" + data + "\r\n";
            case 3 -> hex + "\n" + data + "\r\n";
            case 4 -> hex + " x\r\n" + data + "\r\n";
            case 5 -> hex + ";a\u0001b\r\n" + data + "\r\n";
            case 6 -> hex + "\r\n" + data + "XY";
            case 7 -> hex + "\r\n" + data + "\n";
            case 8 -> "+" + hex + "\r\n" + data + "\r\n";
            default ->
                (hex.equals("1") ? "0" : Integer.toHexString(Integer.parseInt(hex, 16) - 1)) + "\r\n" + data + "\r\n";
        };
    }

    static final Odd NONE = new Odd("none", "HTTP/1.1 %03d Reason\r\n", "", Effect.RELAYED, false, false);

    private static final List<Odd> ODD = List.of(
            odd("no reason", "HTTP/1.1 %03d\r\n", "", Effect.RELAYED),
            odd("empty reason", "HTTP/1.1 %03d \r\n", "", Effect.RELAYED),
            odd("reason with obs-text", "HTTP/1.1 %03d R\u00e9ason \u00ff\r\n", "", Effect.RELAYED),
            odd("reason with tabs and colons", "HTTP/1.1 %03d a\tb: c\r\n", "", Effect.RELAYED),
            odd("reason with a control byte", "HTTP/1.1 %03d Re\u0001ason\r\n", "", Effect.REFUSED),
            odd("reason with DEL", "HTTP/1.1 %03d Re\u007fason\r\n", "", Effect.REFUSED),
            odd("two spaces before the status", "HTTP/1.1  %03d OK\r\n", "", Effect.REFUSED),
            odd("HTTP/1.2", "HTTP/1.2 %03d OK\r\n", "", Effect.REFUSED),
            odd("HTTP/2", "HTTP/2 %03d OK\r\n", "", Effect.REFUSED),
            odd("lower-case version", "http/1.1 %03d OK\r\n", "", Effect.NOT_THIS),
            new Odd(
                    "HTTP/1.0 keep-alive",
                    "HTTP/1.0 %03d OK\r\n",
                    "Connection: keep-alive\r\n",
                    Effect.RELAYED,
                    true,
                    false),
            new Odd("HTTP/1.0", "HTTP/1.0 %03d OK\r\n", "", Effect.RELAYED, true, false),
            fields("obs-fold", "X-Fold: a\r\n b\r\n", Effect.REFUSED),
            fields("obs-fold by a tab", "X-Fold: a\r\n\tb\r\n", Effect.REFUSED),
            fields("NUL in a value", "X-Nul: a\u0000b\r\n", Effect.REFUSED),
            fields("CR alone in a value", "X-Cr: a\rb\r\n", Effect.REFUSED),
            fields("LF alone in a value", "X-Lf: a\nb\r\n", Effect.REFUSED),
            fields("CR alone at a value's end", "X-Cr: ab\r\r\n", Effect.REFUSED),
            fields("DEL in a value", "X-Del: a\u007fb\r\n", Effect.REFUSED),
            fields("obs-text in a value", "X-Obs: caf\u00e9\r\n", Effect.REFUSED),
            fields("space before the colon", "X-Sp : v\r\n", Effect.REFUSED),
            fields("no name", ": v\r\n", Effect.REFUSED),
            fields("no colon", "X-No-Colon\r\n", Effect.REFUSED),
            fields("a value of white space", "X-Empty:\r\nX-Tabs:\t \t\r\nX-Trim:  v \t\r\n", Effect.RELAYED),
            fields("300 fields", many(300, 8), Effect.RELAYED),
            fields("fields over 16 KiB", many(1200, 12), Effect.REFUSED),
            fields("a field of 8000 bytes", "X-Big: " + "b".repeat(8000) + "\r\n", Effect.RELAYED),
            fields("a field of 9000 bytes", "X-Huge: " + "h".repeat(9000) + "\r\n", Effect.REFUSED),
            fields("repeated fields", "Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-R: 1\r\nx-r: 2\r\n", Effect.RELAYED),
            fields("Connection: close", "Connection: close\r\n", Effect.RELAYED),
            fields("Connection: upgrade", "Connection: keep-alive, Upgrade\r\nUpgrade: h2c\r\n", Effect.RELAYED),
            fields("Keep-Alive", "Keep-Alive: timeout=1, max=1\r\nConnection: Keep-Alive\r\n", Effect.RELAYED),
            fields("hop-by-hop named in Connection", "Connection: X-Hop\r\nX-Hop: 1\r\n", Effect.RELAYED),
            fields("Proxy-Connection", "Proxy-Connection: close\r\n", Effect.RELAYED),
            fields("Trailer announced", "Trailer: X-T\r\n", Effect.RELAYED),
            new Odd(
                    "Content-Encoding",
                    "HTTP/1.1 %03d OK\r\n",
                    "Content-Encoding: gzip\r\n",
                    Effect.RELAYED,
                    false,
                    true),
            fields("identity Content-Encoding", "Content-Encoding: identity\r\n", Effect.RELAYED));

    static Odd pick(SplittableRandom random) {
        return ODD.get(random.nextInt(ODD.size()));
    }

    /** The fields that frame a body of {@code length} bytes by its length, written one of several ways. */
    static Framing length(SplittableRandom random, int length) {
        return switch (random.nextInt(36)) {
            case 0 -> new Framing("content-length: " + length + "\r\n", Effect.RELAYED);
            case 1 -> new Framing("Content-Length: 000" + length + "\r\n", Effect.RELAYED);
            case 2 -> new Framing("Content-Length:\t " + length + " \t\r\n", Effect.RELAYED);
            case 3 ->
                new Framing("Content-Length: " + length + "\r\ncontent-length: " + length + "\r\n", Effect.REFUSED);
            case 4 -> new Framing("Content-Length: " + length + ", " + length + "\r\n", Effect.REFUSED);
            case 5 -> new Framing("Content-Length: " + length + "\r\nTransfer-Encoding: identity\r\n", Effect.REFUSED);
            case 6 -> new Framing("Content-Length: +" + length + "\r\n", Effect.REFUSED);
            case 7 -> new Framing("Content-Length: " + length + ",\r\n", Effect.REFUSED);
            case 8 -> new Framing("Content-Length: 1" + "0".repeat(19) + length + "\r\n", Effect.REFUSED);
            case 9 -> new Framing("Content-Length: -" + length + "\r\n", Effect.REFUSED);
            case 10 -> new Framing("Content-Length: \r\n", Effect.REFUSED);
            case 11 -> new Framing("Content-Length: " + length + "\r\nTransfer-Encoding: chunked\r\n", Effect.REFUSED);
            default -> new Framing("Content-Length: " + length + "\r\n", Effect.RELAYED);
        };
    }

    /** The fields that frame a chunked body, written one of several ways. */
    static Framing chunked(SplittableRandom random) {
        return switch (random.nextInt(40)) {
            case 0 -> new Framing("transfer-encoding: chunked\r\n", Effect.RELAYED);
            case 1 -> new Framing("Transfer-Encoding: CHUNKED\r\n", Effect.RELAYED);
            case 2 -> new Framing("Transfer-Encoding:  chunked \t\r\n", Effect.RELAYED);
            case 3 -> new Framing("Transfer-Encoding: chunked, chunked\r\n", Effect.REFUSED);
            case 4 -> new Framing("Transfer-Encoding: gzip, chunked\r\n", Effect.REFUSED);
            case 5 -> new Framing("Transfer-Encoding: chunked\r\ntransfer-encoding: chunked\r\n", Effect.REFUSED);
            case 6 -> new Framing("Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n", Effect.REFUSED);
            case 7 -> new Framing("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", Effect.REFUSED);
            case 8 -> new Framing("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", Effect.REFUSED);
            case 9 -> new Framing("Transfer-Encoding: chunked;q=1\r\n", Effect.REFUSED);
            case 10 -> new Framing("Transfer-Encoding: chunked,\r\n", Effect.REFUSED);
            case 11 -> new Framing("Transfer-Encoding: chunked\r\nTransfer-Encoding: \r\n", Effect.REFUSED);
            case 12 -> new Framing("Transfer-Encoding: x-custom, chunked\r\n", Effect.REFUSED);
            case 13 -> new Framing("Transfer-Encoding: \"chunked\"\r\n", Effect.REFUSED);
            default -> new Framing("Transfer-Encoding: chunked\r\n", Effect.RELAYED);
        };
    }

    /** Trailer lines after the last chunk: none, fields, or lines no trailer section may hold. */
    static Framing trailer(SplittableRandom random) {
        return switch (random.nextInt(20)) {
            case 0 -> new Framing("X-Trailer: 1\r\n", Effect.RELAYED);
            case 1 -> new Framing("X-A: 1\r\nX-B:\r\nContent-Length: 3\r\n", Effect.RELAYED);
            case 2 -> new Framing("X-T: a\u0000b\r\n", Effect.BROKE_AFTER);
            case 3 -> new Framing("X-T: a\r\n folded\r\n", Effect.BROKE_AFTER);
            case 4 -> new Framing("no colon\r\n", Effect.BROKE_AFTER);
            case 5 -> new Framing("X-T: a\rb\r\n", Effect.BROKE_AFTER);
            // Fields no trailer section may carry (RFC 9110 §6.5.1): read and dropped like any other.
            case 6 -> new Framing("Transfer-Encoding: chunked\r\n", Effect.RELAYED);
            case 7 -> new Framing("Host: other\r\nConnection: close\r\nX-Request-Id: zq0zq\r\n", Effect.RELAYED);
            case 8 -> new Framing("Content-Type: text/html\r\nX-Obs: caf\u00e9\r\n", Effect.RELAYED);
            case 9 -> new Framing(many(1200, 12), Effect.BROKE_AFTER);
            case 10 -> new Framing("X-T: 1\n", Effect.BROKE_AFTER);
            default -> new Framing("", Effect.RELAYED);
        };
    }

    private static Odd odd(String name, String line, String fields, Effect effect) {
        return new Odd(name, line, fields, effect, false, false);
    }

    private static Odd fields(String name, String fields, Effect effect) {
        return new Odd(name, NONE.line(), fields, effect, false, false);
    }

    private static String many(int count, int valueLength) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < count; i++) {
            out.append("X-Many-")
                    .append(i)
                    .append(": ")
                    .append("v".repeat(valueLength))
                    .append("\r\n");
        }
        return out.toString();
    }
}
