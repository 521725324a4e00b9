package grid.gateway.app.http;

import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: engine answers generated from a random source for {@link UpstreamAnswersPathsPropertyTest}, each on
 * one {@link ApiPath} and carrying the request's nonce: interim heads, statuses, content types, framings written
 * several ways, odd status lines and header fields ({@link HeadOddities}), trailers, bytes after the answer, and a cut
 * at any byte. Each says what the gateway must make of it ({@link Effect}).
 */
final class GeneratedAnswers {
    static final String INJECTED = "INJECTED";
    /** 408 too: on a reused connection, an engine's keep-alive timeout (the request is sent again); else relayed. */
    private static final int[] STATUSES = {200, 200, 200, 201, 204, 205, 299, 304, 400, 404, 408, 429, 500, 503};

    private static final int[] INTERIM = {100, 102, 103, 150};
    private static final int[] UNRELAYABLE = {101, 99, 600};
    private static final String[] CONTENT_TYPES = {
        "Content-Type: application/json\r\n",
        "Content-Type: text/event-stream\r\n",
        "Content-Type: text/plain\r\n",
        "",
        "Content-Type: json\r\n",
        "Content-Type: application/json; charset\r\n"
    };

    private GeneratedAnswers() {}

    /** What the gateway must make of an answer that is neither cut nor unrelayable by its status. */
    enum Effect {
        /** Relayed as sent (the connection kept or not, as the head says). */
        RELAYED,
        /** The gateway's 502: a head it cannot relay. */
        REFUSED,
        /** What cannot begin a status line: the gateway's 502, or on a reused connection the request sent again. */
        NOT_THIS,
        /** The body relayed, then its trailers refused: the client's answer cut short of its end (or a 502). */
        BROKE_AFTER
    }

    /**
     * One answer: its bytes, its final status, where the final head ends, whether it is relayed without a body,
     * whether its body ends with the connection, its effect, where it is cut (-1: not), by a reset or a close, the
     * body a client should get (before tagging), its oddities, whether it names an earlier request, and whether the
     * gateway must close its connection after it rather than send another request on it ({@code mustClose}).
     */
    record Answer(
            String bytes,
            int status,
            int finalHeadEnd,
            boolean bodyless,
            boolean untilClose,
            Effect effect,
            int cut,
            boolean reset,
            String body,
            String oddity,
            boolean echoesEarlier,
            boolean mustClose) {

        /**
         * Plays the answer on {@code e}; {@code earlier}: the id of the request the connection carried before (null on
         * a new connection), which an answer that {@link #echoesEarlier} names in its head, as an engine that wrote
         * an answer too many does.
         */
        void play(ScriptedUpstream.Exchange e, @Nullable String earlier) throws Exception {
            if (cut < 0) {
                e.write(
                        echoesEarlier && earlier != null
                                ? bytes.replaceFirst(
                                        "X-Engine: yes\r\n", "X-Engine: yes\r\nX-Request-Id: " + earlier + "\r\n")
                                : bytes);
                if (untilClose) {
                    e.socket.shutdownOutput();
                } else if (effect != Effect.RELAYED) {
                    e.awaitPeerClose(10_000);
                }
                return;
            }
            e.write(bytes.substring(0, cut));
            if (reset) {
                e.tcp.setSoLinger(true, 0);
                e.tcp.close();
            } else {
                e.socket.shutdownOutput();
                e.awaitPeerClose(10_000);
            }
        }

        @Override
        public String toString() {
            String shown = bytes.length() > 600 ? bytes.substring(0, 600) + "..." : bytes;
            return "status " + status + " " + effect + " [" + oddity + (echoesEarlier ? ", echoes an earlier id" : "")
                    + "]"
                    + (cut >= 0 ? ", cut at " + cut + (reset ? " by a reset" : " by a close") : "") + ": "
                    + shown.replace("\r", "\\r").replace("\n", "\\n");
        }
    }

    /** A body for {@code path}'s answer naming {@code nonce}; {@code pad} bytes of padding. */
    static String body(ApiPath path, String nonce, int pad, SplittableRandom random) {
        String id = path.idPrefix() + nonce;
        if (!path.events()) {
            return "{\"id\":\"" + id + "\",\"object\":\"response\",\"who\":\"" + nonce + "\",\"pad\":\""
                    + "x".repeat(pad) + "\"}";
        }
        StringBuilder events = new StringBuilder("event: response.created\ndata: {\"type\":\"response.created\","
                + "\"response\":{\"id\":\"" + id + "\",\"who\":\"" + nonce + "\"}}\n\n");
        for (int left = pad; left > 0; ) {
            int n = Math.min(left, 1 + random.nextInt(2000));
            events.append("data: {\"delta\":\"").append("y".repeat(n)).append("\"}\n\n");
            left -= n;
        }
        return events.append("data: [DONE]\n\n").toString();
    }

    /** The plain 200 a request sent again gets, and its body. */
    static String clean(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                + body;
    }

    static Answer generate(SplittableRandom random, ApiPath path, String nonce) {
        StringBuilder bytes = new StringBuilder();
        Effect interims = Effect.RELAYED;
        boolean interimCloses = false;
        int interimHeads = 0;
        for (int i = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 0; i > 0; i--) {
            if (random.nextBoolean()) {
                HeadOddities.Interim interim = HeadOddities.interim(random);
                bytes.append(interim.head());
                interims = worst(interims, interim.effect());
                interimCloses |= interim.closes();
                interimHeads += interim.heads();
                continue;
            }
            interimHeads++;
            bytes.append("HTTP/1.1 ")
                    .append(INTERIM[random.nextInt(INTERIM.length)])
                    .append(" Interim\r\n");
            if (random.nextBoolean()) {
                bytes.append("Link: </x.css>; rel=preload\r\n");
            }
            bytes.append("\r\n");
        }
        if (interimHeads > HeadOddities.MOST_INTERIM) {
            interims = Effect.REFUSED;
        }
        boolean unrelayable = random.nextInt(12) == 0;
        int status = unrelayable
                ? UNRELAYABLE[random.nextInt(UNRELAYABLE.length)]
                : STATUSES[random.nextInt(STATUSES.length)];
        int pad = random.nextInt(5) == 0 ? 66_000 + random.nextInt(4000) : random.nextInt(3000);
        String body = body(path, nonce, pad, random);
        boolean bodyless = status == 204 || status == 304 || (status == 205 && random.nextBoolean());
        int framing = random.nextInt(10); // 0..4 length, 5..8 chunked, 9 until the close
        boolean untilClose = framing == 9 && !bodyless && !unrelayable;
        HeadOddities.Odd odd = random.nextInt(3) == 0 ? HeadOddities.pick(random) : HeadOddities.NONE;
        int finalHeadStart = bytes.length();
        bytes.append(odd.statusLine(status));
        bytes.append(CONTENT_TYPES[random.nextInt(CONTENT_TYPES.length)]).append("X-Engine: yes\r\n");
        bytes.append(odd.fields());
        StringBuilder content = new StringBuilder();
        Effect effect = worst(interims, odd.effect());
        // A 204 or 304 that writes a body anyway, framed by the fields it announces: bytes after the head that are no
        // part of the answer, which the next request on the connection must never read.
        boolean bodyAfterNoContent = bodyless && status != 205 && random.nextInt(3) == 0;
        if (status == 205 && bodyless) {
            bytes.append("Content-Length: 0\r\n");
        } else if (bodyAfterNoContent && random.nextBoolean()) {
            bytes.append("Transfer-Encoding: chunked\r\n");
            content.append(chunked(random, body, "").lines());
        } else if (framing <= 4 || bodyless) {
            HeadOddities.Framing length = HeadOddities.length(random, body.length());
            bytes.append(length.lines());
            effect = worst(effect, length.effect());
            content.append(bodyless && !bodyAfterNoContent ? "" : body);
        } else if (!untilClose) {
            HeadOddities.Framing chunked = HeadOddities.chunked(random);
            bytes.append(chunked.lines());
            effect = worst(effect, chunked.effect());
            HeadOddities.Framing trailer = HeadOddities.trailer(random);
            HeadOddities.Framing chunks = chunked(random, body, trailer.lines());
            content.append(chunks.lines());
            effect = worst(worst(effect, trailer.effect()), chunks.effect());
        } else {
            content.append(body);
        }
        boolean transferEncoding = bytes.substring(finalHeadStart)
                .toLowerCase(java.util.Locale.ROOT)
                .contains("\r\ntransfer-encoding:");
        if (odd.http10() && transferEncoding) {
            effect = worst(effect, Effect.REFUSED); // HTTP/1.0 has no chunked coding, on an answer with a body or not
        }
        if (path.tagged() && odd.encoded() && !bodyless && status != 205) {
            effect = worst(effect, Effect.REFUSED); // ids hidden in a content coding (a 205 is relayed without a body)
        }
        bytes.append("\r\n");
        int finalHeadEnd = bytes.length();
        bytes.append(content);
        boolean cut = random.nextInt(4) == 0;
        boolean leftover = !cut && !untilClose && random.nextInt(4) == 0;
        if (leftover) {
            bytes.append(leftover(random));
        }
        if (unrelayable || (status == 205 && !bodyless && !untilClose)) {
            effect = worst(effect, Effect.REFUSED);
        }
        boolean echoesEarlier = !cut && random.nextInt(10) == 0;
        // Whether the gateway must close the connection after this answer rather than let it carry another request:
        // anything but a 2xx relayed whole (an engine may refuse a request it did not read to its end), a head that
        // says the connection ends (an interim one's included), a body that ends with it, bytes past the answer (and,
        // played on a reused connection, an answer that echoes an earlier request's id: Answer#play).
        boolean mustClose = status < 200
                || status > 299
                || effect != Effect.RELAYED
                || cut
                || untilClose
                || leftover
                || bodyAfterNoContent
                || interimCloses
                || odd.closes()
                || (status == 204 && transferEncoding);
        return new Answer(
                bytes.toString(),
                status,
                finalHeadEnd,
                bodyless || status == 205,
                untilClose,
                effect,
                cut ? (random.nextInt(5) == 0 ? 0 : random.nextInt(bytes.length())) : -1,
                random.nextBoolean(),
                body,
                odd.name() + (bodyAfterNoContent ? ", a body after a " + status : ""),
                echoesEarlier,
                mustClose);
    }

    /**
     * What an engine may write after an answer: another whole answer (with interim heads before it, or not), bytes
     * that cannot begin one, a stray line end, an interim head alone.
     */
    private static String leftover(SplittableRandom random) {
        String injected = clean("{\"who\":\"" + INJECTED + "\"}");
        return switch (random.nextInt(6)) {
            case 0 -> injected;
            case 1 -> "HTTP/1.1 100 Continue\r\n\r\n" + injected;
            case 2 -> "\r\n" + injected;
            case 3 -> "HTTP/1.1 103 Early Hints\r\nLink: </" + INJECTED + ">\r\n\r\n";
            default -> INJECTED + " garbage\r\n\r\n";
        };
    }

    /**
     * Whether the gateway may send the request again after {@code answer} on a reused connection: nothing of an answer
     * to it came (a cut before any byte), what came cannot begin one or names an earlier request, or a 408 (the
     * engine's keep-alive timeout).
     */
    static boolean resendable(Answer answer) {
        return answer.cut() == 0
                || answer.effect() == Effect.NOT_THIS
                || answer.echoesEarlier()
                || (answer.status() == 408 && (answer.cut() < 0 || answer.cut() >= answer.finalHeadEnd()));
    }

    /** The effect that decides: a refusal at the head over one after the body, over a relay. */
    private static Effect worst(Effect a, Effect b) {
        List<Effect> order = List.of(Effect.NOT_THIS, Effect.REFUSED, Effect.BROKE_AFTER, Effect.RELAYED);
        return order.indexOf(a) <= order.indexOf(b) ? a : b;
    }

    /**
     * {@code body} in chunks of random sizes, their size lines written the ways an engine may ({@link
     * HeadOddities#sizeLine}), then the last chunk and trailers; one answer in twelve with one chunk that breaks the
     * framing ({@link HeadOddities#brokenChunk}).
     */
    private static HeadOddities.Framing chunked(SplittableRandom random, String body, String trailers) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        int chunk = 0;
        int broken = random.nextInt(12) == 0 ? random.nextInt(4) : -1;
        Effect effect = Effect.RELAYED;
        while (at < body.length()) {
            int size = Math.min(body.length() - at, 1 + random.nextInt(random.nextBoolean() ? 700 : 20_000));
            String data = body.substring(at, at + size);
            if (chunk++ == broken) {
                out.append(HeadOddities.brokenChunk(random, Integer.toHexString(size), data));
                effect = Effect.BROKE_AFTER;
            } else {
                out.append(HeadOddities.sizeLine(random, size)).append(data).append("\r\n");
            }
            at += size;
        }
        out.append(HeadOddities.lastChunk(random)).append(trailers).append("\r\n");
        return new HeadOddities.Framing(out.toString(), effect);
    }
}
