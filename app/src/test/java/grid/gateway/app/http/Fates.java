package grid.gateway.app.http;

import grid.gateway.routing.tag.ClusterDigest;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Test fixture for {@link AccountingPropertyTest}: the fates a request can meet (at the engine, at the client, at the
 * gateway's own checks), the routes it takes, and the engine's side of each fate, played on a {@link ScriptedUpstream}
 * exchange. Each request carries a nonce ({@code zq<n>zq}) the engine finds in its head or body.
 */
final class Fates {
    private Fates() {}

    /** What becomes of one request. */
    enum Fate {
        /** A whole 2xx answer, its usage reporting cached tokens. */
        OK,
        /** A whole 4xx or 5xx answer of the engine's. */
        ENGINE_ERROR,
        /** A whole event stream with a final usage event. */
        STREAM,
        /** A reset before any byte of the answer (a stale connection when the connection was reused). */
        RESET_BEFORE,
        /** Part of the status line and head, then the engine's close. */
        CUT_IN_HEAD,
        /** The head and part of the body, then the engine's close. */
        CUT_IN_BODY,
        /** Nothing, past the first-byte timeout. */
        SILENT_BEFORE_HEAD,
        /** The head, then nothing, past the idle timeout. */
        SILENT_AFTER_HEAD,
        /** The head and part of the body, then nothing, past the idle timeout. */
        SILENT_MID_BODY,
        /** A head the gateway cannot read: two Content-Lengths. */
        MALFORMED,
        /** On a reused connection a 408 and the close (a keep-alive timeout); on a new one a 408 relayed. */
        STALE_408,
        /** The client leaves once the engine has its request and before any answer. */
        CLIENT_GONE_BEFORE,
        /** The client leaves after the first event of a stream. */
        CLIENT_GONE_DURING,
        /** The client leaves once the engine has its request; the engine then answers at once (a race with the probe). */
        CLIENT_GONE_RACE,
        /** A whole 2xx answer in a content coding: relayed as it came, its usage not read. */
        ENCODED,
        /** A new conversation: routed to the local site, not by affinity, and answered. */
        NEW_CONVERSATION,
        /** A model no cluster serves: the gateway's 404. */
        UNKNOWN_MODEL,
        /** A body over max_body_bytes: 413. */
        TOO_LARGE,
        /** A head Helidon's parser refuses (a space before a header's colon): 400. */
        BAD_REQUEST,
        /** A method the path does not define: 405. */
        WRONG_METHOD,
        /** A stored id whose tag names no cluster of the grid: 404. */
        PIN_UNKNOWN,
        /** A stored id of east-a or east-b: routed there, and answered. */
        PIN_ROUTED,
        /** A stored id of the draining cluster east-c: 503. */
        PIN_DRAINING,
        /** A model only an unreachable cluster serves: connect failures (502), then, ejected, none admitted (503). */
        DEAD_CLUSTER,
        /** Part of the body, then the client's half-close: 400. */
        BODY_CUT_BY_CLIENT,
        /**
         * A whole chunked body with a chunk size that is no number: 400. (Sent whole: a bad size line that ends the
         * bytes sent so far waits for the next byte, or the body timeout, before it is refused.)
         */
        BAD_CHUNKS,
        /** Part of the body, then nothing past the body timeout: 408. */
        SLOW_BODY;

        /** Whether the request reaches an engine that plays this fate. */
        boolean engineAnswers() {
            return ordinal() <= NEW_CONVERSATION.ordinal() || this == PIN_ROUTED;
        }

        /** Whether the request streams (its body asks for a stream, the engine answers one). */
        boolean streams() {
            return this == STREAM || this == CLIENT_GONE_DURING;
        }
    }

    /** The prompt APIs a request may use. */
    enum Api {
        CHAT("/v1/chat/completions"),
        COMPLETIONS("/v1/completions"),
        MESSAGES("/v1/messages"),
        RESPONSES("/v1/responses");

        final String path;

        Api(String path) {
            this.path = path;
        }
    }

    /** One request: its nonce, fate, API, the engine's status for it, the cached tokens its usage reports. */
    record Trial(int n, Fate fate, Api api, int status, int cached, int cut, boolean sharedPrompt, String pinTo) {
        /** Counted down by the engine once it has the request (client gone before the answer). */
        static final java.util.Map<String, CountDownLatch> ENGINE_GOT = new java.util.concurrent.ConcurrentHashMap<>();
        /** Counted down by the client once it closed its connection. */
        static final java.util.Map<String, CountDownLatch> CLIENT_LEFT = new java.util.concurrent.ConcurrentHashMap<>();

        String nonce() {
            return "zq" + n + "zq";
        }

        String requestId() {
            return "acct-" + n;
        }

        @Override
        public String toString() {
            return requestId() + " " + fate + " " + api + " status " + status + " cached " + cached + " cut " + cut
                    + (pinTo.isEmpty() ? "" : " pinned to " + pinTo);
        }
    }

    private static final int[] ERRORS = {400, 404, 422, 429, 500, 503};
    private static final String[] PIN_TO = {"east-a", "east-b"};

    /** A long system prompt several requests share, so that some find a run of cached blocks (affinity hits). */
    static final String SHARED = "shared-system-prompt ".repeat(80);

    static Trial generate(SplittableRandom random, int n) {
        List<Fate> engines =
                Arrays.stream(Fate.values()).filter(Fate::engineAnswers).toList();
        List<Fate> gateways =
                Arrays.stream(Fate.values()).filter(f -> !f.engineAnswers()).toList();
        // The engine's fates three times as often as the gateway's own.
        Fate fate = random.nextInt(4) != 0
                ? engines.get(random.nextInt(engines.size()))
                : gateways.get(random.nextInt(gateways.size()));
        Api api = Api.values()[random.nextInt(Api.values().length)];
        return new Trial(
                n,
                fate,
                api,
                fate == Fate.ENGINE_ERROR ? ERRORS[random.nextInt(ERRORS.length)] : 200,
                random.nextInt(4) * 64,
                random.nextInt(1000),
                random.nextInt(3) == 0,
                fate == Fate.PIN_ROUTED ? PIN_TO[random.nextInt(PIN_TO.length)] : "");
    }

    /** The bytes of {@code trial}'s request. */
    static String request(Trial trial) {
        String id = "X-Request-Id: " + trial.requestId() + "\r\n";
        return switch (trial.fate()) {
            case PIN_UNKNOWN ->
                get("/v1/responses/resp_north." + ClusterDigest.of("east-a") + ".." + trial.nonce(), id);
            case PIN_ROUTED ->
                get("/v1/responses/resp_east." + ClusterDigest.of(trial.pinTo()) + ".." + trial.nonce(), id);
            case PIN_DRAINING ->
                get("/v1/responses/resp_east." + ClusterDigest.of("east-c") + ".." + trial.nonce(), id);
            case WRONG_METHOD -> "DELETE " + trial.api().path + " HTTP/1.1\r\nHost: gw\r\n" + id + "\r\n";
            case BAD_REQUEST ->
                "POST " + trial.api().path + " HTTP/1.1\r\nHost: gw\r\n" + id + "Bad : x\r\n"
                        + "Content-Length: 2\r\n\r\n{}";
            case TOO_LARGE -> post(trial.api().path, id, body(trial, "demo-model", "x".repeat(5000)));
            case UNKNOWN_MODEL -> post(trial.api().path, id, body(trial, "no-such-model", ""));
            case DEAD_CLUSTER -> post(trial.api().path, id, body(trial, "dead-model", ""));
            case NEW_CONVERSATION ->
                post("/v1/conversations", id, "{\"metadata\":{\"who\":\"" + trial.nonce() + "\"}}");
            case BODY_CUT_BY_CLIENT, SLOW_BODY -> {
                String whole = post(trial.api().path, id, body(trial, "demo-model", ""));
                yield whole.substring(0, whole.length() - 5);
            }
            case BAD_CHUNKS ->
                "POST " + trial.api().path + " HTTP/1.1\r\nHost: gw\r\n" + id
                        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n0\r\n\r\n";
            default -> post(trial.api().path, id, body(trial, "demo-model", trial.sharedPrompt() ? SHARED : ""));
        };
    }

    private static String get(String target, String id) {
        return "GET " + target + " HTTP/1.1\r\nHost: gw\r\n" + id + "\r\n";
    }

    private static String post(String path, String id, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: gw\r\n" + id + "Content-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body;
    }

    private static String body(Trial trial, String model, String prefix) {
        String text = prefix + "who-" + trial.nonce();
        String stream = trial.fate().streams() ? ",\"stream\":true" : "";
        return switch (trial.api()) {
            case CHAT ->
                "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]" + stream
                        + "}";
            case COMPLETIONS -> "{\"model\":\"" + model + "\",\"prompt\":\"" + text + "\"" + stream + "}";
            case MESSAGES ->
                "{\"model\":\"" + model + "\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\"," + "\"content\":\""
                        + text + "\"}]" + stream + "}";
            case RESPONSES -> "{\"model\":\"" + model + "\",\"input\":\"" + text + "\"" + stream + "}";
        };
    }

    /** The JSON body of the engine's answer to {@code trial}, with a usage reporting its cached tokens. */
    static String answerBody(Trial trial) {
        int cached = trial.cached();
        if (trial.fate() == Fate.NEW_CONVERSATION) {
            return "{\"id\":\"conv_" + trial.nonce() + "\",\"object\":\"conversation\"}";
        }
        return switch (trial.fate() == Fate.PIN_ROUTED ? Api.RESPONSES : trial.api()) {
            case CHAT, COMPLETIONS ->
                "{\"id\":\"cmpl-" + trial.nonce() + "\",\"usage\":{\"prompt_tokens\":900,"
                        + "\"completion_tokens\":1,\"total_tokens\":901,\"prompt_tokens_details\":{\"cached_tokens\":"
                        + cached + "}}}";
            case MESSAGES ->
                "{\"id\":\"msg_" + trial.nonce() + "\",\"type\":\"message\",\"usage\":{\"input_tokens\":900,"
                        + "\"output_tokens\":1,\"cache_read_input_tokens\":" + cached + "}}";
            case RESPONSES ->
                "{\"id\":\"resp_" + trial.nonce() + "\",\"object\":\"response\",\"usage\":{"
                        + "\"input_tokens\":900,\"output_tokens\":1,\"total_tokens\":901,\"input_tokens_details\":"
                        + "{\"cached_tokens\":" + cached + "}}}";
        };
    }

    /** A whole JSON answer of {@code status}. */
    static String json(int status, String body) {
        return "HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                + "\r\n\r\n" + body;
    }

    /** The events of a whole stream: two deltas, the usage, [DONE]; as chunks after {@link ScriptedUpstream#SSE_HEAD}. */
    static String events(Trial trial) {
        return chunk("data: {\"n\":0}\n\n") + chunk("data: {\"n\":1}\n\n")
                + chunk("data: " + answerBody(trial) + "\n\n") + chunk("data: [DONE]\n\n") + "0\r\n\r\n";
    }

    private static String chunk(String text) {
        return UpstreamFaultsIntegrationTest.chunk(text);
    }

    /**
     * Plays {@code trial}'s fate on {@code e}, the engine's first sight of the request; {@code reused}: whether the
     * connection carried a request before.
     */
    static void play(Trial trial, ScriptedUpstream.Exchange e, boolean reused) throws Exception {
        String whole = json(trial.status(), answerBody(trial));
        int headEnd = whole.indexOf("\r\n\r\n") + 4;
        switch (trial.fate()) {
            case OK, ENGINE_ERROR, PIN_ROUTED, NEW_CONVERSATION -> e.write(whole);
            case ENCODED -> e.write(whole.replace("Content-Type: application/json\r\n", "Content-Encoding: gzip\r\n"));
            case CLIENT_GONE_RACE -> {
                Trial.ENGINE_GOT.get(trial.nonce()).countDown();
                Trial.CLIENT_LEFT.get(trial.nonce()).await(20, TimeUnit.SECONDS);
                e.write(whole);
            }
            case STREAM -> e.write(ScriptedUpstream.SSE_HEAD + events(trial));
            case RESET_BEFORE -> e.reset();
            case CUT_IN_HEAD -> closeAfter(e, whole.substring(0, 5 + trial.cut() % (headEnd - 9)));
            case CUT_IN_BODY ->
                closeAfter(e, whole.substring(0, headEnd + 1 + trial.cut() % (whole.length() - headEnd - 1)));
            case SILENT_BEFORE_HEAD -> e.awaitPeerClose(20_000);
            case SILENT_AFTER_HEAD -> silentAfter(e, whole.substring(0, headEnd));
            case SILENT_MID_BODY ->
                silentAfter(e, whole.substring(0, headEnd + 1 + trial.cut() % (whole.length() - headEnd - 1)));
            case MALFORMED -> silentAfter(e, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}");
            case STALE_408 -> {
                e.write("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
                e.socket.close();
            }
            case CLIENT_GONE_BEFORE -> {
                Trial.ENGINE_GOT.get(trial.nonce()).countDown();
                e.awaitPeerClose(20_000);
            }
            case CLIENT_GONE_DURING -> {
                e.write(ScriptedUpstream.SSE_HEAD + chunk("data: {\"n\":0}\n\n"));
                for (int i = 1; i < 1000; i++) {
                    e.write(chunk("data: {\"n\":" + i + "}\n\n"));
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            }
            default -> throw new AssertionError("the engine never sees " + trial);
        }
    }

    private static void closeAfter(ScriptedUpstream.Exchange e, String bytes) throws Exception {
        e.write(bytes);
        e.socket.shutdownOutput();
        e.awaitPeerClose(20_000);
    }

    private static void silentAfter(ScriptedUpstream.Exchange e, String bytes) throws Exception {
        e.write(bytes);
        e.awaitPeerClose(20_000);
    }
}
