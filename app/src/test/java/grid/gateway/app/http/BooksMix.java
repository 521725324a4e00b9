package grid.gateway.app.http;

import grid.gateway.app.http.Fates.Api;
import grid.gateway.routing.tag.ClusterDigest;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Test fixture for {@link BooksPropertyTest}: the fates of its mix, each request's bytes and the engine's side. Each
 * request carries a nonce ({@code zb<n>zb}) the engine finds in its head or body, an {@code X-Request-Id} and a
 * {@code traceparent} whose trace id holds its number, so that its access line and its spans are found.
 */
final class BooksMix {
    private BooksMix() {}

    /** What becomes of one request. */
    enum Fate {
        /** A whole JSON 2xx answer. */
        PLAIN,
        /** A whole event stream. */
        STREAMED,
        /** A whole 4xx or 5xx answer of the engine's. */
        ENGINE_ERROR,
        /** {@code GET /v1/responses/{id}} of a stored id of east-a or east-b: routed there and answered. */
        STORED_GET,
        /** The client leaves after the first event of a stream the engine goes on writing. */
        GONE_DURING,
        /** The client leaves once the engine has its request, before any answer. */
        GONE_BEFORE,
        /** The engine resets before any byte (a stale connection when reused: sent again, answered). */
        ENGINE_RESET,
        /** The engine's stream breaks inside its second event: the client's answer ends abnormally. */
        ENGINE_CUT,
        /** The engine says nothing past the first-byte timeout: 504. */
        ENGINE_TIMEOUT,
        /** A stored id of east-down, whose engine refuses connections: 503, pinned (routed, or unavailable once ejected). */
        PIN_DOWN,
        /** A path no row serves: 404, with or without a body. */
        NO_PATH,
        /** A method the API path does not define: 405, with or without a body. */
        NO_METHOD,
        /** A body over max_body_bytes: 413. */
        TOO_LARGE,
        /** A chunked body with a size that is no number: 400. */
        BAD_BODY,
        /** A body sent while a held body spends the budget: 503 (run alone: no other request is in flight). */
        BUDGET;

        boolean engineAnswers() {
            return ordinal() <= ENGINE_TIMEOUT.ordinal();
        }

        boolean streams() {
            return this == STREAMED || this == GONE_DURING || this == ENGINE_CUT;
        }

        /** Whether the request reaches the proxy's body read (and so has a server span). */
        boolean traced() {
            return this != NO_PATH && this != NO_METHOD;
        }
    }

    /** One request of the mix. */
    record Trial(int n, Fate fate, Api api, int status, boolean withBody, String pinTo) {
        String nonce() {
            return "zb" + n + "zb";
        }

        String requestId() {
            return "books-" + n;
        }

        /** The trace id its {@code traceparent} names (32 hex digits). */
        String traceId() {
            return "%032x".formatted(0xb00c0000L + n);
        }

        @Override
        public String toString() {
            return requestId() + " " + fate + " " + api + " " + status + (withBody ? " with a body" : "")
                    + (pinTo.isEmpty() ? "" : " pinned to " + pinTo);
        }
    }

    /** Counted down by the engine once it has the request (a client that leaves). */
    static final java.util.Map<String, CountDownLatch> ENGINE_GOT = new java.util.concurrent.ConcurrentHashMap<>();
    /** Counted down by the client once it has closed its connection. */
    static final java.util.Map<String, CountDownLatch> CLIENT_LEFT = new java.util.concurrent.ConcurrentHashMap<>();

    private static final int[] ERRORS = {400, 404, 429, 500, 503};
    private static final String[] METHODS = {"PUT", "DELETE", "PATCH", "GET"};

    static Trial generate(SplittableRandom random, int n) {
        Fate[] all = Fate.values();
        Fate fate = all[random.nextInt(all.length)];
        Api api = Api.values()[random.nextInt(Api.values().length)];
        int status = fate == Fate.ENGINE_ERROR ? ERRORS[random.nextInt(ERRORS.length)] : 200;
        return new Trial(
                n,
                fate,
                api,
                status,
                random.nextBoolean(),
                fate == Fate.STORED_GET ? (random.nextBoolean() ? "east-a" : "east-b") : "");
    }

    /** The head lines every request of {@code trial} carries. */
    static String ids(Trial trial) {
        return "X-Request-Id: " + trial.requestId() + "\r\ntraceparent: 00-" + trial.traceId()
                + "-00f067aa0ba902b7-01\r\n";
    }

    /** The bytes of {@code trial}'s request. */
    static String request(Trial trial, int maxBody) {
        String ids = ids(trial);
        String small = body(trial, "");
        return switch (trial.fate()) {
            case STORED_GET ->
                get("/v1/responses/resp_east." + ClusterDigest.of(trial.pinTo()) + ".." + trial.nonce(), ids);
            case PIN_DOWN ->
                get("/v1/responses/resp_east." + ClusterDigest.of("east-down") + ".." + trial.nonce(), ids);
            case NO_PATH -> {
                String path = "/v1/nothing-here/" + trial.nonce();
                yield trial.withBody() ? post(path, ids, small) : get(path, ids);
            }
            case NO_METHOD -> {
                String method = METHODS[trial.n() % METHODS.length];
                yield method + " " + trial.api().path + " HTTP/1.1\r\nHost: gw\r\n" + ids
                        + (trial.withBody()
                                ? "Content-Type: application/json\r\nContent-Length: " + small.length() + "\r\n\r\n"
                                        + small
                                : "\r\n");
            }
            case TOO_LARGE -> post(trial.api().path, ids, body(trial, "x".repeat(maxBody)));
            // More than the half of max_body_bytes the budget has left while a held body spends the rest.
            case BUDGET -> post(trial.api().path, ids, body(trial, "x".repeat(maxBody * 6 / 10)));
            case BAD_BODY ->
                "POST " + trial.api().path + " HTTP/1.1\r\nHost: gw\r\n" + ids
                        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n0\r\n\r\n";
            default -> post(trial.api().path, ids, small);
        };
    }

    /** A head declaring a body of {@code length} bytes, for a request that holds the budget. */
    static String heldHead(Trial trial, String tag, int length) {
        return "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nX-Request-Id: " + trial.requestId() + tag
                + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n";
    }

    private static String get(String target, String ids) {
        return "GET " + target + " HTTP/1.1\r\nHost: gw\r\n" + ids + "\r\n";
    }

    private static String post(String path, String ids, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: gw\r\n" + ids + "Content-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body;
    }

    private static String body(Trial trial, String prefix) {
        String text = prefix + "who-" + trial.nonce();
        String stream = trial.fate().streams() ? ",\"stream\":true" : "";
        return switch (trial.api()) {
            case CHAT ->
                "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]" + stream
                        + "}";
            case COMPLETIONS -> "{\"model\":\"demo-model\",\"prompt\":\"" + text + "\"" + stream + "}";
            case MESSAGES ->
                "{\"model\":\"demo-model\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"" + text
                        + "\"}]" + stream + "}";
            case RESPONSES -> "{\"model\":\"demo-model\",\"input\":\"" + text + "\"" + stream + "}";
        };
    }

    /** The engine's whole JSON answer to {@code trial}. */
    static String answer(Trial trial) {
        String body = trial.fate() == Fate.STORED_GET || trial.api() == Api.RESPONSES
                ? "{\"id\":\"resp_" + trial.nonce() + "\",\"object\":\"response\",\"status\":\"completed\"}"
                : "{\"id\":\"x-" + trial.nonce() + "\",\"object\":\"answer\"}";
        return Fates.json(trial.status(), body);
    }

    /** Plays {@code trial}'s fate on the engine's first sight of its request. */
    static void play(Trial trial, ScriptedUpstream.Exchange e) throws Exception {
        switch (trial.fate()) {
            case PLAIN, ENGINE_ERROR, STORED_GET -> e.write(answer(trial));
            case STREAMED ->
                e.write(ScriptedUpstream.SSE_HEAD + chunk("data: {\"n\":0}\n\n") + chunk("data: {\"n\":1}\n\n")
                        + chunk("data: [DONE]\n\n") + "0\r\n\r\n");
            case GONE_DURING -> {
                e.write(ScriptedUpstream.SSE_HEAD + chunk("data: {\"n\":0}\n\n"));
                CLIENT_LEFT.get(trial.nonce()).await(20, TimeUnit.SECONDS);
                for (int i = 1; i < 400; i++) {
                    e.write(chunk("data: {\"n\":" + i + "}\n\n"));
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            }
            case GONE_BEFORE -> {
                ENGINE_GOT.get(trial.nonce()).countDown();
                e.awaitPeerClose(20_000);
            }
            case ENGINE_RESET -> e.reset();
            case ENGINE_CUT -> {
                e.write(ScriptedUpstream.SSE_HEAD + chunk("data: {\"n\":0}\n\n") + "20\r\ndata: {\"n");
                e.socket.shutdownOutput();
                e.awaitPeerClose(20_000);
            }
            case ENGINE_TIMEOUT -> e.awaitPeerClose(20_000);
            default -> throw new AssertionError("the engine never sees " + trial);
        }
    }

    private static String chunk(String text) {
        return UpstreamFaultsIntegrationTest.chunk(text);
    }
}
