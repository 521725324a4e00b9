package grid.gateway.app.http;

import static grid.gateway.app.http.ClientRequests.Close.MUST;
import static grid.gateway.app.http.ClientRequests.Close.NEVER;
import static grid.gateway.app.http.RequestOddities.refused;

import grid.gateway.app.http.ClientRequests.Expect;
import grid.gateway.app.http.RequestDraft.Framing;
import grid.gateway.app.http.RequestOddities.Applied;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: {@link RequestOddities}' oddities of a body's framing: {@code Content-Length} repeated, signed, padded,
 * huge, or with {@code Transfer-Encoding}; {@code Transfer-Encoding} repeated, with another coding, or in odd case;
 * chunk extensions, trailers (forbidden fields among them), bad chunk sizes, odd bytes after a chunk's data; and the
 * garbage a client may write after a request.
 */
final class FramingOddities {
    private FramingOddities() {}

    static @Nullable Applied contentLength(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (draft.framing != Framing.LENGTH) {
            return null;
        }
        int n = draft.body.length();
        String value = switch (random.nextInt(9)) {
            case 0 -> String.valueOf(n);
            case 1 -> String.valueOf(n + 1 + random.nextInt(3));
            case 2 -> n + ", " + n;
            case 3 -> "+" + n;
            case 4 -> "00" + n;
            case 5 -> "99999999999";
            case 6 -> "9".repeat(25 + random.nextInt(10));
            case 7 -> List.of("-1", "-0", "", "0x10", n + ".0").get(random.nextInt(5));
            default -> "with TE";
        };
        if (value.equals("with TE")) {
            draft.chunked(random);
            draft.field("Content-Length: " + n);
            return refused("Content-Length with Transfer-Encoding", MUST, 400);
        }
        if (value.matches("[0-9]+") && value.length() < 6 && !value.startsWith("0")) {
            // A second Content-Length field, equal or not.
            draft.field((random.nextBoolean() ? "content-length: " : "Content-Length: ") + value);
            return refused("Content-Length twice", MUST, 400);
        }
        draft.remove("Content-Length");
        draft.field("Content-Length: " + value);
        if (value.startsWith("00")) {
            return new Applied("Content-Length " + value, Expect.either(MUST, 400), null);
        }
        return value.equals("99999999999")
                ? refused("Content-Length huge", MUST, 413)
                : refused("Content-Length '" + value + "'", MUST, 400);
    }

    static @Nullable Applied transferEncoding(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!draft.hasBody()) {
            return null;
        }
        if (draft.framing != Framing.CHUNKED) {
            draft.chunked(random);
        }
        draft.remove("Transfer-Encoding");
        return switch (random.nextInt(7)) {
            case 0 -> {
                draft.field("Transfer-Encoding: chunked, chunked");
                yield refused("TE chunked, chunked", MUST, 400);
            }
            case 1 -> {
                draft.field("Transfer-Encoding: chunked");
                draft.field("Transfer-Encoding: chunked");
                yield refused("TE chunked twice", MUST, 400);
            }
            case 2 -> {
                draft.field("Transfer-Encoding: gzip, chunked");
                yield refused("TE gzip, chunked", MUST, 501);
            }
            case 3 -> {
                draft.field("Transfer-Encoding: chunked, gzip");
                yield refused("TE chunked not last", MUST, 400, 501);
            }
            case 4 -> {
                draft.field("Transfer-Encoding: gzip");
                draft.field("Transfer-Encoding: chunked");
                yield refused("TE gzip then chunked", MUST, 400, 501);
            }
            case 5 -> {
                draft.field("Transfer-Encoding: identity, chunked");
                yield refused("TE identity, chunked", MUST, 400, 501);
            }
            default -> {
                String odd =
                        List.of("Chunked", "CHUNKED", "chunked ", "\tchunked").get(random.nextInt(4));
                draft.field("Transfer-Encoding:" + (odd.startsWith("\t") ? "" : " ") + odd);
                yield new Applied("TE '" + odd + "'", Expect.either(MUST, 400, 501), null);
            }
        };
    }

    static @Nullable Applied chunkExtension(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!chunkedWithData(random, draft)) {
            return null;
        }
        List<String> sizes = sizeLines(draft);
        int at = random.nextInt(sizes.size());
        sizes.set(
                at,
                sizes.get(at) + List.of(";ext=1", ";e", " ;e=\"q\"", ";a=b;c").get(random.nextInt(4)));
        return refused("chunk extension", MUST, 400);
    }

    static @Nullable Applied trailer(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!chunkedWithData(random, draft)) {
            return null;
        }
        draft.trailers = List.of(
                        "X-Trailer: v\r\n",
                        "Content-Length: 5\r\n",
                        "Transfer-Encoding: chunked\r\n",
                        "Host: other\r\n",
                        "X-A: 1\r\nX-B: 2\r\n")
                .get(random.nextInt(5));
        return refused("trailer " + draft.trailers.trim(), MUST, 400);
    }

    static @Nullable Applied chunkSize(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!chunkedWithData(random, draft)) {
            return null;
        }
        List<String> sizes = sizeLines(draft);
        int at = random.nextInt(sizes.size());
        String size = sizes.get(at);
        String odd = List.of("zz", "-1", "0x" + size, "", "ffffffffffffffffff", " " + size, "+" + size, size + "g")
                .get(random.nextInt(8));
        sizes.set(at, odd);
        if (odd.startsWith("+")) {
            // Helidon 4.5 reads a leading + (decisions.md): the body is forwarded whole, or refused.
            return new Applied("chunk size " + odd, Expect.either(MUST, 400), null);
        }
        return refused("chunk size '" + odd + "'", MUST, 400, 413);
    }

    static @Nullable Applied chunkOverrun(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!chunkedWithData(random, draft)) {
            return null;
        }
        draft.afterChunk = List.of("XY", "\n", "\r\r\n", "").get(random.nextInt(4));
        return new Applied(
                "after chunk data '" + draft.afterChunk.replace("\r", "\\r").replace("\n", "\\n") + "'",
                Expect.either(MUST, 400),
                null);
    }

    /**
     * What a client may write after a whole request (a body longer than it declared, or a smuggling attempt): what
     * the gateway must answer itself, never forwarding it.
     */
    static ClientRequests.Request garbage(SplittableRandom random, String nonce) {
        return switch (random.nextInt(5)) {
            case 0 -> junk(nonce, "}\r\n\r\n");
            case 1 -> junk(nonce, "XYZ\r\n\r\n");
            case 2 -> junk(nonce, "\0\0\0\0\r\n\r\n");
            case 3 -> junk(nonce, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
            default ->
                new ClientRequests.Request(
                        null,
                        nonce,
                        "GET /pause HTTP/1.1\r\nHost: engine\r\n" + ClientRequests.TRIAL_HEADER + ": " + nonce
                                + "\r\n\r\n",
                        Expect.refused(NEVER, 404),
                        "smuggled GET /pause",
                        "");
        };
    }

    private static ClientRequests.Request junk(String nonce, String bytes) {
        return new ClientRequests.Request(null, nonce, bytes, Expect.refused(MUST, 400, 505), "junk after a body", "");
    }

    /** Sets {@code body} as the draft's body, framed as before. */
    static void rebody(RequestDraft draft, String body) {
        draft.body = body;
        if (draft.framing == Framing.CHUNKED) {
            draft.chunked(new SplittableRandom(body.hashCode()));
        } else {
            draft.remove("Content-Length");
            draft.field("Content-Length: " + body.length());
        }
    }

    private static boolean chunkedWithData(SplittableRandom random, RequestDraft draft) {
        if (!draft.hasBody()) {
            return false;
        }
        if (draft.framing != Framing.CHUNKED) {
            draft.chunked(random);
        }
        return !draft.chunks.isEmpty();
    }

    private static List<String> sizeLines(RequestDraft draft) {
        if (draft.sizeLines == null) {
            draft.sizeLines = new ArrayList<>();
            draft.chunks.forEach(c -> draft.sizeLines.add(Integer.toHexString(c.length())));
        }
        return draft.sizeLines;
    }
}
