package grid.gateway.app.http;

import grid.gateway.app.endpoint.ErrorShape;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test fixture: generated client connections for {@link ClientRequestsPropertyTest}. A trial is one connection: one to
 * three requests on any {@link ClientRoute}, each valid or with one generated oddity ({@link RequestOddities}), sent
 * as the trial's {@link Delivery} says (pipelined in one write, one at a time, trickled, cut by a close or a reset at
 * any byte, or stalled inside its last body past the body deadline), each with what the gateway must do with it.
 */
final class ClientRequests {
    /** The header naming a request to the scripted engine, which echoes it. */
    static final String TRIAL_HEADER = "X-Trial";

    /** Whether a refusal must close the connection, must keep it, or may do either. */
    enum Close {
        MUST,
        NEVER,
        MAY
    }

    /**
     * What the gateway must do with a request: forward it exactly (and relay the engine's answer), refuse it with one
     * of {@code statuses} in its API's error shape, or either.
     */
    record Expect(boolean forwardable, boolean refusable, Set<Integer> statuses, Close close) {
        static final Expect FORWARDED = new Expect(true, false, Set.of(), Close.NEVER);

        static Expect refused(Close close, Integer... statuses) {
            return new Expect(false, true, Set.of(statuses), close);
        }

        static Expect either(Close close, Integer... statuses) {
            return new Expect(true, true, Set.of(statuses), close);
        }
    }

    /**
     * One request: its route and nonce, its bytes, what the gateway must do with it and why (the oddity's name), and
     * what the engine must receive of it when forwarded.
     */
    record Request(ClientRoute route, String nonce, String wire, Expect expect, String oddity, String engineBody) {
        ErrorShape errors() {
            return route == null ? ErrorShape.OPENAI : route.errors();
        }

        String method() {
            return route == null ? "" : route.method();
        }

        @Override
        public String toString() {
            String shown = wire.length() > 600 ? wire.substring(0, 600) + "…(" + wire.length() + " bytes)" : wire;
            return nonce + " " + route + " [" + oddity + "] " + expect + " "
                    + shown.replace("\r", "\\r").replace("\n", "\\n").replace("\0", "\\0");
        }
    }

    /** How a trial's bytes are sent. */
    enum Delivery {
        /** Every request in one write. */
        PIPELINED,
        /** A request, its answer read, then the next. */
        ONE_AT_A_TIME,
        /** Pieces of a few bytes, a few milliseconds apart, within the body deadline. */
        TRICKLED,
        /** Cut at a byte by closing the client's sending side (a FIN); answers still read. */
        CUT_BY_CLOSE,
        /** Cut at a byte by a reset. */
        CUT_BY_RESET,
        /** The last request's body (or its head when it has none) stopped short, the client waiting for an answer. */
        STALLED
    }

    /** One connection: its requests, how they are sent, and where a cut falls (a byte offset of all of them). */
    record Trial(int number, List<Request> requests, Delivery delivery, int cutAt, boolean tls) {
        String wire() {
            StringBuilder all = new StringBuilder();
            requests.forEach(r -> all.append(r.wire()));
            return all.toString();
        }

        @Override
        public String toString() {
            return "trial " + number + " " + delivery + (cutAt >= 0 ? " at byte " + cutAt : "") + " " + requests;
        }
    }

    /** The name {@code FramingOddities.chunkSize} gives a refused chunk size line. */
    private static final Pattern BAD_SIZE = Pattern.compile("chunk size '(.+)'");

    private ClientRequests() {}

    /** Trial {@code number}: a connection's requests and how they are sent. */
    static Trial generate(SplittableRandom random, int number, boolean tls) {
        int count = 1 + random.nextInt(3);
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String nonce = "t" + number + "r" + i + "x";
            ClientRoute route = ClientRoute.values()[random.nextInt(ClientRoute.values().length)];
            requests.add(request(random, route, nonce));
            if (requests.getLast().expect() == Expect.FORWARDED && random.nextInt(10) == 0) {
                // A body longer than declared, or a request smuggled behind one.
                requests.add(FramingOddities.garbage(random, "t" + number + "g" + i + "x"));
            }
        }
        Delivery delivery = delivery(random, requests);
        if (delivery == Delivery.STALLED) {
            Request last = requests.getLast();
            requests.set(requests.size() - 1, stalled(random, last));
        }
        int total = requests.stream().mapToInt(r -> r.wire().length()).sum();
        int cutAt = delivery == Delivery.CUT_BY_CLOSE || delivery == Delivery.CUT_BY_RESET ? random.nextInt(total) : -1;
        return new Trial(number, List.copyOf(requests), delivery, cutAt, tls);
    }

    private static Delivery delivery(SplittableRandom random, List<Request> requests) {
        int pick = random.nextInt(100);
        if (pick < 3
                && requests.getLast().expect().forwardable()
                && !requests.getLast().expect().refusable()) {
            return Delivery.STALLED;
        }
        if (pick < 50 && badSizeLineEnd(requests.getLast()) > 0) {
            return Delivery.STALLED;
        }
        if (pick < 15) {
            return random.nextBoolean() ? Delivery.CUT_BY_CLOSE : Delivery.CUT_BY_RESET;
        }
        if (pick < 30) {
            return Delivery.TRICKLED;
        }
        return pick < 60 ? Delivery.ONE_AT_A_TIME : Delivery.PIPELINED;
    }

    /** A request on {@code route}: valid three times in five, else with one oddity. */
    static Request request(SplittableRandom random, ClientRoute route, String nonce) {
        String body = route.body(nonce, random);
        RequestDraft draft = new RequestDraft(route.method(), route.target(nonce), latin1(body));
        draft.field(random.nextInt(4) == 0 ? "host:  gw " : "Host: gw");
        draft.field(TRIAL_HEADER + ": " + nonce);
        if (route.hasBody()) {
            draft.field(random.nextBoolean() ? "Content-Type: application/json" : "content-type:application/json");
            draft.field("Content-Length: " + draft.body.length());
            if (random.nextInt(3) == 0) {
                draft.chunked(random);
            }
        }
        if (random.nextInt(6) == 0) {
            draft.field("User-Agent: gen/1 (" + nonce + ")\t");
        }
        String engineBody = ClientRoute.engineBody(draft.body);
        if (random.nextInt(5) < 3) {
            return new Request(route, nonce, draft.wire(), Expect.FORWARDED, "valid", engineBody);
        }
        RequestOddities.Applied odd = RequestOddities.apply(random, draft, route);
        String forwarded = odd.engineBody() != null ? odd.engineBody() : ClientRoute.engineBody(draft.body);
        return new Request(route, nonce, draft.wire(), odd.expect(), odd.name(), forwarded);
    }

    /**
     * {@code last} stopped short: the body sent up to a random byte short of its end (a body of none: the head with
     * {@code Expect: 100-continue} and the body never following); the gateway must answer 408 at its body deadline.
     */
    private static Request stalled(SplittableRandom random, Request last) {
        int badLineEnd = badSizeLineEnd(last);
        if (badLineEnd > 0) {
            // Sent up to the chunk size line that cannot be one: refused as soon as it is read, not at the deadline.
            return new Request(
                    last.route(),
                    last.nonce(),
                    last.wire().substring(0, badLineEnd),
                    last.expect(),
                    last.oddity() + ", nothing sent after it",
                    last.engineBody());
        }
        String wire = last.wire();
        int head = wire.indexOf("\r\n\r\n") + 4;
        Expect timedOut = Expect.refused(Close.MUST, 408);
        if (head < wire.length()) {
            return new Request(
                    last.route(),
                    last.nonce(),
                    wire.substring(0, head + random.nextInt(wire.length() - head)),
                    timedOut,
                    last.oddity() + ", body stalled",
                    last.engineBody());
        }
        String expecting = wire.substring(0, head - 2) + "Content-Length: 20\r\nExpect: 100-continue\r\n\r\n";
        return new Request(
                last.route(), last.nonce(), expecting, timedOut, "100-continue, body never sent", last.engineBody());
    }

    /**
     * Where the line of {@code request}'s chunk size oddity ends in its wire (after its CRLF), or -1 when it has none
     * (an empty size line cannot be told from the lines around it, and a leading {@code +} is read as a size).
     */
    private static int badSizeLineEnd(Request request) {
        Matcher odd = BAD_SIZE.matcher(request.oddity());
        if (!odd.matches() || odd.group(1).startsWith("+")) {
            return -1;
        }
        String wire = request.wire();
        String line = odd.group(1) + "\r\n";
        int body = wire.indexOf("\r\n\r\n") + 4;
        if (wire.startsWith(line, body)) {
            return body + line.length();
        }
        int at = wire.indexOf("\r\n" + line, body);
        return at < 0 ? -1 : at + 2 + line.length();
    }

    static String latin1(String utf8) {
        return new String(utf8.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    static byte[] bytes(String latin1) {
        return latin1.getBytes(StandardCharsets.ISO_8859_1);
    }

    static String lower(String text) {
        return text.toLowerCase(Locale.ROOT);
    }
}
