package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.testing.SeededTrials;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One request, one answer, on every upstream connection, over generated engine answers on real sockets: statuses
 * (interim, without a body, unknown, unrelayable), content types (Helidon-unparsable ones included), framings
 * (Content-Length, chunked with extensions and trailers, until the close), bytes after the answer, and the answer cut
 * at any byte by a reset or a close. Every client gets exactly its own answer, or the gateway's error, or its own
 * answer cut short; never a byte of another request's answer or of what an engine wrote after one, and never a stack
 * trace in the log. Each request carries a nonce the engine puts in its answer, so an
 * answer that reached the wrong client is seen at once.
 */
class UpstreamAnswersPropertyTest {
    private static final String INJECTED = "INJECTED";
    private static final int[] STATUSES = {200, 200, 200, 201, 204, 205, 299, 304, 400, 404, 429, 500, 503};
    private static final int[] INTERIM = {100, 102, 103, 150};
    private static final int[] UNRELAYABLE = {101, 99, 600};
    /** Content-Type lines: the usual ones, and ones Helidon's media type parser refuses (relayed as sent all the same). */
    private static final String[] CONTENT_TYPES = {
        "Content-Type: application/json\r\n",
        "Content-Type: application/json; charset=utf-8\r\n",
        "Content-Type: text/event-stream\r\n",
        "Content-Type: text/plain\r\n",
        "",
        "Content-Type: json\r\n",
        "Content-Type: \r\n",
        "Content-Type: application/json; charset\r\n"
    };

    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private GatewayHarness gateway;
    private final Map<String, EngineAnswer> answers = new ConcurrentHashMap<>();
    private final Set<String> answered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nonces = new AtomicInteger();
    /** How the checked answers went: exact, the gateway's 502, cut short, sent again. */
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    /** Log records with a stack trace thrown while reading an engine's answer: none, whatever an engine sends. */
    private final List<LogRecord> traced = new CopyOnWriteArrayList<>();

    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.INFO.intValue()
                    && UpstreamAnswerLabelsIntegrationTest.readingAnEnginesAnswer(record.getThrown())) {
                traced.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void start() {
        Logger.getLogger("").addHandler(capture);
        engine = new ScriptedUpstream();
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())), engine);
        engine.script = e -> {
            String nonce = UpstreamAnswersIntegrationTest.who(e);
            EngineAnswer answer = answers.get(nonce);
            if (answer == null || !answered.add(nonce)) {
                // A request sent again (a stale connection) gets a plain answer with its own nonce.
                e.write(UpstreamAnswersIntegrationTest.ok(ownBody(nonce)));
                return;
            }
            answer.play(e);
        };
    }

    @AfterEach
    void stop() {
        gateway.close();
        Logger.getLogger("").removeHandler(capture);
        assertThat(traced)
                .as("log records with a stack trace from reading an engine's answer")
                .extracting(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage() + " / " + r.getThrown())
                .isEmpty();
    }

    static String ownBody(String nonce) {
        return "{\"who\":\"" + nonce + "\"}";
    }

    /** What the engine does with one request. */
    record EngineAnswer(
            String bytes,
            int status,
            int finalHeadEnd,
            boolean bodyless,
            boolean untilClose,
            boolean unrelayable,
            int cut,
            boolean reset,
            String body) {

        void play(ScriptedUpstream.Exchange e) throws IOException {
            if (cut < 0) {
                e.write(bytes);
                if (untilClose) {
                    e.socket.shutdownOutput();
                } else if (unrelayable) {
                    e.awaitPeerClose(10_000);
                }
                return;
            }
            e.write(bytes.substring(0, cut));
            if (reset) {
                e.reset();
            } else {
                e.socket.shutdownOutput();
                e.awaitPeerClose(10_000);
            }
        }

        @Override
        public String toString() {
            return "status " + status + (cut >= 0 ? ", cut at " + cut + (reset ? " by a reset" : " by a close") : "")
                    + ": " + bytes.replace("\r", "\\r").replace("\n", "\\n");
        }
    }

    private EngineAnswer generate(SplittableRandom random, String nonce) {
        StringBuilder bytes = new StringBuilder();
        for (int i = random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0; i > 0; i--) {
            bytes.append("HTTP/1.1 ")
                    .append(INTERIM[random.nextInt(INTERIM.length)])
                    .append(" Interim\r\n");
            if (random.nextBoolean()) {
                bytes.append("Link: </x.css>; rel=preload\r\n");
            }
            bytes.append("\r\n");
        }
        boolean unrelayable = random.nextInt(12) == 0;
        int status = unrelayable
                ? UNRELAYABLE[random.nextInt(UNRELAYABLE.length)]
                : STATUSES[random.nextInt(STATUSES.length)];
        String body = ownBody(nonce).replace("}", ",\"pad\":\"" + "x".repeat(random.nextInt(3000)) + "\"}");
        boolean bodyless = status == 204 || status == 304 || (status == 205 && random.nextBoolean());
        int framing = random.nextInt(10); // 0..4 length, 5..8 chunked, 9 until the close
        boolean untilClose = framing == 9 && !bodyless && !unrelayable;
        bytes.append("HTTP/1.1 ").append(String.format("%03d", status)).append(" Reason\r\n");
        bytes.append(CONTENT_TYPES[random.nextInt(CONTENT_TYPES.length)]).append("X-Engine: yes\r\n");
        StringBuilder content = new StringBuilder();
        if (status == 205 && bodyless) {
            bytes.append("Content-Length: 0\r\n");
        } else if (framing <= 4 || bodyless) {
            bytes.append("Content-Length: ").append(body.length()).append("\r\n");
            content.append(bodyless ? "" : body);
        } else if (!untilClose) {
            bytes.append("Transfer-Encoding: chunked\r\n");
            content.append(chunked(random, body));
        } else {
            content.append(body);
        }
        bytes.append("\r\n");
        int finalHeadEnd = bytes.length();
        bytes.append(content);
        boolean cut = random.nextInt(3) == 0;
        if (!cut && !untilClose && random.nextInt(4) == 0) {
            bytes.append(
                    random.nextBoolean()
                            ? UpstreamAnswersIntegrationTest.ok("{\"who\":\"" + INJECTED + "\"}")
                            : INJECTED + " garbage\r\n\r\n");
        }
        boolean relayedEmpty = bodyless || status == 205;
        return new EngineAnswer(
                bytes.toString(),
                status,
                finalHeadEnd,
                relayedEmpty,
                untilClose,
                // A 205 announcing content cannot be relayed; one announcing nothing is relayed without a body.
                unrelayable || (status == 205 && !bodyless && !untilClose),
                // One cut in five before any byte: the stale connection's case, when the connection was reused.
                cut ? (random.nextInt(5) == 0 ? 0 : random.nextInt(bytes.length())) : -1,
                random.nextBoolean(),
                body);
    }

    /** {@code body} in chunks of random sizes, each with an extension or not, then the last chunk and trailers. */
    private static String chunked(SplittableRandom random, String body) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (at < body.length()) {
            int size = Math.min(body.length() - at, 1 + random.nextInt(700));
            out.append(Integer.toHexString(size));
            if (random.nextInt(4) == 0) {
                out.append(";ext=").append(random.nextInt(100));
            }
            out.append("\r\n").append(body, at, at + size).append("\r\n");
            at += size;
        }
        out.append("0\r\n");
        if (random.nextInt(3) == 0) {
            out.append("X-Trailer: ").append(random.nextInt(100)).append("\r\n");
        }
        return out.append("\r\n").toString();
    }

    @Test
    void generatedAnswers_eachClientGetsItsOwnAnswerOrAnError_nothingReachesTheNextRequest() {
        List<String> seen = new ArrayList<>();
        SeededTrials.forAll(
                20_251_204L,
                1_000,
                random -> {
                    String nonce = "n" + nonces.incrementAndGet();
                    EngineAnswer answer = generate(random, nonce);
                    answers.put(nonce, answer);
                    return new Trial(nonce, answer);
                },
                trial -> check(trial, seen));
        // The trials reached every kind of outcome, over connections that were reused (each request has a body, so
        // an answer other than a 2xx, about half of them, closes its connection).
        assertThat(outcomes.keySet()).containsExactlyInAnyOrder("exact", "error", "cut short", "sent again");
        assertThat(engine.connections()).isLessThan(900);
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
    }

    @Test
    void oneAnswerCutAtEveryByte_neverAnotherRequestsBytes() {
        List<String> seen = new ArrayList<>();
        String head =
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n";
        for (int cut = 0; cut < 200; cut++) {
            String nonce = "n" + nonces.incrementAndGet();
            String body = ownBody(nonce);
            String bytes = head + "5;a=b\r\n" + body.substring(0, 5) + "\r\n" + Integer.toHexString(body.length() - 5)
                    + "\r\n" + body.substring(5) + "\r\n0\r\nX-T: 1\r\n\r\n";
            if (cut >= bytes.length()) {
                break;
            }
            EngineAnswer answer =
                    new EngineAnswer(bytes, 200, head.length(), false, false, false, cut, cut % 2 == 0, body);
            answers.put(nonce, answer);
            check(new Trial(nonce, answer), seen);
            // A clean request after each cut: the pool never hands on what the cut left.
            String clean = "n" + nonces.incrementAndGet();
            check(new Trial(clean, plain(clean)), seen);
        }
    }

    private static EngineAnswer plain(String nonce) {
        String body = ownBody(nonce);
        String bytes = UpstreamAnswersIntegrationTest.ok(body);
        return new EngineAnswer(bytes, 200, bytes.length() - body.length(), false, false, false, -1, false, body);
    }

    record Trial(String nonce, EngineAnswer answer) {
        @Override
        public String toString() {
            return nonce + " " + answer;
        }
    }

    private void check(Trial trial, List<String> seen) {
        answers.putIfAbsent(trial.nonce(), trial.answer());
        RawClient.Answer got;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(trial.nonce()));
            got = client.read();
        } catch (IOException e) {
            throw new AssertionError("the client's connection failed before an answer", e);
        }
        EngineAnswer e = trial.answer();
        // Never a byte meant for another request, nor anything an engine wrote after an answer.
        assertThat(got.body()).doesNotContain(INJECTED);
        for (String other : seen) {
            assertThat(got.body()).doesNotContain("\"" + other + "\"");
        }
        seen.add(trial.nonce());
        boolean gatewayError = got.status() == 502 && got.body().contains("bad_gateway");
        if (e.cut() >= 0 && e.cut() < e.finalHeadEnd()) {
            // Cut before the final head was whole: the gateway's 502, or, when the cut came before any byte on a
            // reused connection, the request sent again and answered in full.
            boolean resent = e.cut() == 0 && got.status() == 200 && got.body().equals(ownBody(trial.nonce()));
            assertThat(gatewayError || resent).as("%s", got).isTrue();
            count(resent ? "sent again" : "error");
        } else if (e.unrelayable()) {
            assertThat(gatewayError)
                    .as("502 for an answer the gateway cannot relay: %s", got)
                    .isTrue();
            count("error");
        } else if (e.cut() < 0) {
            exact(got, e);
            count("exact");
        } else if (e.bodyless()) {
            assertThat(got.status()).isEqualTo(e.status());
            assertThat(got.body()).isEmpty();
            count("exact");
        } else {
            // Cut in the body: the gateway's 502 (nothing had gone out), or the status and a prefix of the body,
            // cut short unless the body ends with the connection anyway.
            boolean prefix = got.status() == e.status()
                    && e.body().startsWith(got.body())
                    && (!got.complete() || e.untilClose());
            assertThat(gatewayError || prefix).as("%s", got).isTrue();
            count(gatewayError ? "error" : "cut short");
        }
    }

    private static void exact(RawClient.Answer got, EngineAnswer e) {
        assertThat(got.status()).isEqualTo(e.status());
        assertThat(got.complete()).isTrue();
        assertThat(got.body()).isEqualTo(e.bodyless() ? "" : e.body());
    }
}
