package grid.gateway.conformance.soak;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One soak client: until told to stop, it picks a request kind at random (seeded) and checks its outcome.
 *
 * <pre>
 *   the four APIs, plain and streamed          200, streams end with their final event
 *   stored responses: create, retrieve, delete  200 each, through tagged ids; a conversation and a response in it
 *   bad inputs: broken JSON (engine 400), unknown model 404, forged id 404, body over the limit 413
 *   injected faults (x-sim-fault): 429 with Retry-After, 500, 503 passed through; slow first byte (200);
 *     first byte past the gateway's timeout 504; pauses between events (200); reset before the answer 502;
 *     reset mid-stream (the client sees the stream end abnormally, never a clean end)
 *   client aborts: a streamed answer closed after its first event
 * </pre>
 *
 * <p>Not thread-safe: one per client thread.
 */
final class Traffic {
    static final String MODEL = "demo-model";
    /** The gateway's first-byte timeout the soak configures; the slow-first-byte fault stays under it. */
    static final Duration FIRST_BYTE_TIMEOUT = Duration.ofSeconds(5);
    /** The body limit the soak configures. */
    static final int MAX_BODY_BYTES = 16 * 1024;

    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"((resp|conv)_[^\"]+)\"");
    private static final Predicate<String> ANY = body -> true;
    private static final Predicate<String> DONE = body -> body.contains("data: [DONE]");

    private final String base;
    private final Exchange exchange;
    private final Tally tally;
    private final SplittableRandom random;

    Traffic(String base, Exchange exchange, Tally tally, long seed) {
        this.base = base;
        this.exchange = exchange;
        this.tally = tally;
        this.random = new SplittableRandom(seed);
    }

    /** Sends requests until {@code running} turns false. */
    void run(BooleanSupplier running) {
        while (running.getAsBoolean()) {
            one(random.nextInt(100));
        }
    }

    private void one(int dice) {
        String prompt = "Soak prompt " + random.nextInt(40) + ": " + "tell me about the grid. ".repeat(12);
        String chat = "{\"model\":\"" + MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]";
        if (dice < 14) {
            expect("chat", post("/v1/chat/completions", chat + "}", ""), 200, false, ANY);
        } else if (dice < 26) {
            expect("chat-stream", post("/v1/chat/completions", chat + ",\"stream\":true}", ""), 200, false, DONE);
        } else if (dice < 32) {
            String body =
                    "{\"model\":\"" + MODEL + "\",\"prompt\":\"" + prompt + "\",\"stream\":" + (dice % 2 == 0) + "}";
            expect("completions", post("/v1/completions", body, ""), 200, false, dice % 2 == 0 ? DONE : ANY);
        } else if (dice < 40) {
            boolean stream = dice % 2 == 0;
            String body = "{\"model\":\"" + MODEL + "\",\"max_tokens\":16,\"stream\":" + stream
                    + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
            Predicate<String> whole = stream ? b -> b.contains("message_stop") : ANY;
            expect("messages", post("/v1/messages", body, ""), 200, false, whole);
        } else if (dice < 50) {
            storedResponse(prompt, dice % 2 == 0);
        } else if (dice < 55) {
            conversation(prompt);
        } else if (dice < 65) {
            badInput(dice);
        } else if (dice < 90) {
            fault(dice, chat);
        } else {
            expect(
                    "client-abort",
                    post("/v1/chat/completions", chat + ",\"stream\":true}", "pause-ms=200"),
                    200,
                    true,
                    ANY);
        }
    }

    private void storedResponse(String prompt, boolean stream) {
        String body = "{\"model\":\"" + MODEL + "\",\"input\":\"" + prompt + "\",\"stream\":" + stream + "}";
        String created = expect(
                "responses-create",
                post("/v1/responses", body, ""),
                200,
                false,
                stream ? b -> b.contains("response.completed") : ANY);
        String id = id(created, "resp_");
        if (id == null) {
            return;
        }
        expect("responses-retrieve", request("GET", "/v1/responses/" + id, null), 200, false, ANY);
        String next = "{\"model\":\"" + MODEL + "\",\"input\":\"go on\",\"previous_response_id\":\"" + id + "\"}";
        expect("responses-continue", post("/v1/responses", next, ""), 200, false, ANY);
        expect("responses-delete", request("DELETE", "/v1/responses/" + id, null), 200, false, ANY);
    }

    private void conversation(String prompt) {
        String created = expect("conversations-create", post("/v1/conversations", "{}", ""), 200, false, ANY);
        String id = id(created, "conv_");
        if (id == null) {
            return;
        }
        String body = "{\"model\":\"" + MODEL + "\",\"input\":\"" + prompt + "\",\"conversation\":\"" + id + "\"}";
        expect("conversations-respond", post("/v1/responses", body, ""), 200, false, ANY);
        expect("conversations-retrieve", request("GET", "/v1/conversations/" + id, null), 200, false, ANY);
    }

    private void badInput(int dice) {
        switch (dice % 4) {
            case 0 ->
                expect("bad-json", post("/v1/chat/completions", "{\"model\":\"" + MODEL + "\",", ""), 400, false, ANY);
            case 1 ->
                expect(
                        "unknown-model",
                        post(
                                "/v1/chat/completions",
                                "{\"model\":\"no-such-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                                ""),
                        404,
                        false,
                        ANY);
            case 2 ->
                expect(
                        "forged-id",
                        request("GET", "/v1/responses/resp_east.0123abcd.0011223344556677.f00", null),
                        404,
                        false,
                        ANY);
            default -> oversize();
        }
    }

    /**
     * A body over the limit: 413 from its Content-Length, before it is read, with the connection closed. The client
     * may still be writing the body then, and a close with unread bytes resets the connection, which can destroy the
     * 413 on its way: so an abnormal end with no status is an accepted outcome too.
     */
    private void oversize() {
        tally.sent();
        HttpRequest request = post(
                "/v1/chat/completions",
                "{\"model\":\"" + MODEL + "\",\"x\":\"" + "a".repeat(MAX_BODY_BYTES) + "\"}",
                "");
        Exchange.Outcome out = exchange.send(request, false, ANY);
        boolean ok = (out.end() == Tally.End.ANSWERED && out.status() == 413)
                || (out.end() == Tally.End.ABNORMAL && out.status() == -1);
        tally.ended(
                out.status() == 413 ? "oversize-body" : "oversize-body-reset",
                out.end(),
                out.status(),
                ok,
                ok ? "" : abbreviated(out.body()));
    }

    private void fault(int dice, String chat) {
        String stream = chat + ",\"stream\":true}";
        switch (dice % 9) {
            case 0 ->
                expect(
                        "fault-429",
                        post("/v1/chat/completions", chat + "}", "status=429,retry-after=3"),
                        429,
                        false,
                        ANY);
            case 1 -> expect("fault-500", post("/v1/chat/completions", chat + "}", "status=500"), 500, false, ANY);
            case 2 -> expect("fault-503", post("/v1/chat/completions", chat + "}", "status=503"), 503, false, ANY);
            case 3 ->
                expect(
                        "fault-slow-first-byte",
                        post("/v1/chat/completions", stream, "first-byte-ms=500"),
                        200,
                        false,
                        DONE);
            case 4 ->
                expect(
                        "fault-first-byte-timeout",
                        post(
                                "/v1/chat/completions",
                                chat + "}",
                                "first-byte-ms="
                                        + FIRST_BYTE_TIMEOUT.plusSeconds(1).toMillis()),
                        504,
                        false,
                        ANY);
            case 5 -> expect("fault-pauses", post("/v1/chat/completions", stream, "pause-ms=100"), 200, false, DONE);
            case 6 ->
                expect(
                        "fault-reset-before-answer",
                        post("/v1/chat/completions", chat + "}", "reset-after=0"),
                        502,
                        false,
                        ANY);
            default ->
                expectAbnormal(
                        "fault-reset-mid-stream",
                        post("/v1/chat/completions", stream, "reset-after=" + (1 + dice % 3)));
        }
    }

    private HttpRequest post(String path, String json, String fault) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (!fault.isEmpty()) {
            b.header("x-sim-fault", fault);
        }
        return b.build();
    }

    private HttpRequest request(String method, String path, @Nullable String unused) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
    }

    /** Sends and checks status and end; returns the body of an answer as expected, else empty. */
    private String expect(String kind, HttpRequest request, int status, boolean abort, Predicate<String> whole) {
        tally.sent();
        Exchange.Outcome out = exchange.send(request, abort, whole);
        Tally.End wanted = abort ? Tally.End.CLIENT_ABORT : Tally.End.ANSWERED;
        boolean ok = out.end() == wanted && out.status() == status;
        tally.ended(kind, out.end(), out.status(), ok, ok ? "" : abbreviated(out.body()));
        return ok ? out.body() : "";
    }

    /** An injected reset mid-stream: headers (200) came, then the stream must break, never end cleanly. */
    private void expectAbnormal(String kind, HttpRequest request) {
        tally.sent();
        Exchange.Outcome out = exchange.send(request, false, DONE);
        boolean ok = out.end() == Tally.End.ABNORMAL && (out.status() == 200 || out.status() == -1);
        tally.ended(kind, out.end(), out.status(), ok, ok ? "" : abbreviated(out.body()));
    }

    private static @Nullable String id(String body, String prefix) {
        Matcher m = ID.matcher(body);
        while (m.find()) {
            if (m.group(1).startsWith(prefix)) {
                return m.group(1);
            }
        }
        return null;
    }

    private static String abbreviated(String body) {
        return body.length() > 200 ? body.substring(0, 200) + "…" : body;
    }
}
