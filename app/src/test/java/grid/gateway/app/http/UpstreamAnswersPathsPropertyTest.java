package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.http.GeneratedAnswers.Answer;
import grid.gateway.app.http.GeneratedAnswers.Effect;
import grid.gateway.routing.testing.SeededTrials;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One request, one answer, on every upstream connection, over generated engine answers on every way the gateway
 * forwards and relays ({@link ApiPath}: the untagged POSTs, Anthropic's among them, the tagged POSTs held whole or
 * tagged as they stream or event by event, on a stored object too, the bodiless GET and DELETE of a stored object and
 * of its items, a Responses object's input items) and with odd heads ({@link HeadOddities}: status
 * lines, folded, control and obs-text bytes, repeated and odd framing fields, huge heads, HTTP/1.0, interim heads of
 * every kind, odd and broken chunk lines, forbidden and bad trailers, a 204 or 304 that writes a body), with what an
 * engine may write after an answer, and with the engine ending a connection idle in the pool (a reset, a close, a FIN
 * alone), on real sockets, plain here and over TLS in a subclass. Each client gets its own answer (its ids tagged; a
 * tagged JSON answer within the hold's limit held whole), the gateway's 502 in its path's error shape, its own answer
 * cut short, or, when its reused connection held no answer to it, its own answer to the request sent again; never a
 * byte of another request's answer or of what an engine wrote after one, never a stack trace in the log; and no
 * request ever goes on a connection after an answer that ends it. {@code -Dupstream.seed=N} runs another seed.
 * {@link UpstreamAnswersPropertyTest} walks the untagged POST's framings and cuts at more length.
 */
class UpstreamAnswersPathsPropertyTest extends ScriptedEngineIntegrationTest {
    private static final Pattern NONCE = Pattern.compile("zq[0-9]+zq");
    private static final Pattern REQUEST_ID = Pattern.compile("(?im)^X-Request-Id: *(\\S+)");

    private final Map<String, Trial> trials = new ConcurrentHashMap<>();
    /** How many times the engine was asked each nonce's request. */
    private final Map<String, AtomicInteger> plays = new ConcurrentHashMap<>();
    /** The request id of the last request each engine connection carried. */
    private final Map<Socket, String> lastIdOn = new ConcurrentHashMap<>();
    /** The answer each engine connection carried last, when its connection must not carry another request. */
    private final Map<Socket, String> mustCloseOn = new ConcurrentHashMap<>();
    /** Requests that came on a connection that must have been closed, each naming the answer it carried before. */
    private final List<String> reusedAfterAnEnd = new CopyOnWriteArrayList<>();

    private final AtomicInteger nonces = new AtomicInteger();
    /** How the checked answers went, by path and outcome. */
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();

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

    /** A slow client's receive buffer, and its pause after each read of it: the relay writes into a full buffer. */
    private static final int SLOW_BUFFER = 16 * 1024;

    private static final long SLOW_PAUSE = 500_000;

    /** The seed of a run: {@code -Dupstream.seed=...} to run others. */
    static long seed() {
        return Long.getLong("upstream.seed", DEFAULT_SEED);
    }

    private static final long DEFAULT_SEED = 20_261_207L;
    /** The most bytes of a tagged JSON answer held whole (HeldAnswer.LIMIT). */
    private static final int HELD_LIMIT = 64 * 1024;

    /** Trials of one run: each a new client connection and one request. */
    int trialCount() {
        return 500;
    }

    /** The paths a run draws from: every one. */
    ApiPath[] paths() {
        return ApiPath.values();
    }

    /** Whether the run is long enough to meet a reused connection that holds no answer to its request. */
    boolean resendsSeen() {
        return true;
    }

    @BeforeEach
    void scriptTheEngine() {
        Logger.getLogger("").addHandler(capture);
        engine.script = e -> {
            String ended = mustCloseOn.remove(e.socket);
            if (ended != null) {
                reusedAfterAnEnd.add(ended);
            }
            Matcher id = REQUEST_ID.matcher(e.head);
            String earlier = id.find() ? lastIdOn.put(e.socket, id.group(1)) : lastIdOn.remove(e.socket);
            Matcher nonce = NONCE.matcher(e.head + new String(e.body, StandardCharsets.UTF_8));
            Trial trial = nonce.find() ? trials.get(nonce.group()) : null;
            int play = trial == null
                    ? 0
                    : plays.computeIfAbsent(trial.nonce(), n -> new AtomicInteger())
                            .incrementAndGet();
            if (play == 1 || play == 2) {
                // The second: the request sent again (its reused connection held no answer to it), on a new connection.
                Answer answer = play == 1 ? trial.answer() : trial.again();
                // Said before the answer goes: its client waits for the end once it has the answer.
                boolean endsIdle = trial.idleEnd() != IdleEnd.NONE && !answer.mustClose() && !answer.echoesEarlier();
                trial.ending().set(endsIdle);
                answer.play(e, earlier);
                if (endsIdle) {
                    endWhileIdle(e, trial);
                    return;
                }
                if ((answer.mustClose() || (answer.echoesEarlier() && earlier != null)) && !e.socket.isClosed()) {
                    mustCloseOn.put(e.socket, trial.nonce() + " " + trial.path() + " " + answer);
                }
            } else {
                e.write(GeneratedAnswers.clean("{\"who\":\"nobody\"}"));
            }
        };
    }

    /**
     * Ends {@code e}'s connection once {@code trial}'s client has its answer (the connection is in the pool by then,
     * when the gateway kept it), as an engine's keep-alive timeout or a crash does, and tells the client when the
     * gateway's kernel took the end.
     */
    private static void endWhileIdle(ScriptedUpstream.Exchange e, Trial trial) throws Exception {
        try {
            if (!trial.answered().await(30, TimeUnit.SECONDS)) {
                return;
            }
            switch (trial.idleEnd()) {
                case RESET -> e.resetAndAwaitTheGatewaysEnd();
                case CLOSE -> e.closeAndAwaitTheGatewaysEnd(true);
                default -> e.closeAndAwaitTheGatewaysEnd(false);
            }
        } finally {
            trial.ended().countDown();
        }
    }

    /** How the engine ends a connection idle after an answer that lets it live: not, a reset, a close, a FIN alone. */
    enum IdleEnd {
        NONE,
        RESET,
        CLOSE,
        FIN
    }

    @AfterEach
    void noStackTraces() {
        Logger.getLogger("").removeHandler(capture);
        assertThat(traced)
                .as("log records with a stack trace from reading an engine's answer")
                .extracting(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage() + " / " + r.getThrown())
                .isEmpty();
    }

    /**
     * One request: its nonce, its path, the engine's answer, the answer to it sent again, and whether its client reads
     * slowly.
     */
    record Trial(
            String nonce,
            ApiPath path,
            Answer answer,
            Answer again,
            boolean slow,
            IdleEnd idleEnd,
            AtomicBoolean ending,
            CountDownLatch answered,
            CountDownLatch ended) {
        Trial(String nonce, ApiPath path, Answer answer, Answer again, boolean slow, IdleEnd idleEnd) {
            this(
                    nonce,
                    path,
                    answer,
                    again,
                    slow,
                    idleEnd,
                    new AtomicBoolean(),
                    new CountDownLatch(1),
                    new CountDownLatch(1));
        }

        @Override
        public String toString() {
            return nonce + " " + path + (slow ? " read slowly " : " ")
                    + (idleEnd == IdleEnd.NONE ? "" : "then idle ended by " + idleEnd + " ") + answer + "; sent again: "
                    + again;
        }
    }

    @Test
    void generatedAnswersOnEveryPath_eachClientGetsItsOwnAnswerOrAnError_nothingReachesTheNextRequest() {
        ApiPath[] paths = paths();
        SeededTrials.forAll(
                seed(),
                trialCount(),
                random -> {
                    String nonce = "zq" + nonces.incrementAndGet() + "zq";
                    ApiPath path = paths[random.nextInt(paths.length)];
                    Answer answer = GeneratedAnswers.generate(random, path, nonce);
                    Answer again = GeneratedAnswers.generate(random, path, nonce);
                    IdleEnd idleEnd = random.nextInt(4) == 0
                            ? IdleEnd.values()[1 + random.nextInt(IdleEnd.values().length - 1)]
                            : IdleEnd.NONE;
                    Trial trial = new Trial(nonce, path, answer, again, random.nextInt(8) == 0, idleEnd);
                    trials.put(nonce, trial);
                    return trial;
                },
                this::check);
        // Every answer's memory was given back, whatever became of it.
        GatewayHarness.await("every request ended", () -> gateway.server.requestsInFlight() == 0);
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
        assertThat(gateway.metric("grid_inflight_body_bytes", "")).isZero();
        // Every path met every kind of outcome; connections were reused (checked on the default seed: another seed's
        // run, -Dupstream.seed, may miss a rare outcome on some path).
        if (seed() == DEFAULT_SEED) {
            coverage(paths);
        }
    }

    private void coverage(ApiPath[] paths) {
        Map<String, Integer> counted = new TreeMap<>();
        outcomes.forEach((k, v) -> counted.put(k, v.get()));
        for (ApiPath path : paths) {
            assertThat(counted.keySet()).as("outcomes %s", counted).contains(path + " exact", path + " error");
        }
        // A tagged JSON answer is cut short only when longer than is held whole; the others are.
        assertThat(counted.keySet())
                .as("outcomes %s", counted)
                .contains("CHAT cut short", "RESPONSES_STREAMED cut short")
                .containsAnyOf(Arrays.stream(paths)
                        .filter(p -> p.tagged() && !p.events())
                        .map(p -> p + " cut short")
                        .toArray(String[]::new));
        if (resendsSeen()) {
            assertThat(counted.keySet()).as("outcomes %s", counted).anyMatch(k -> k.endsWith(" sent again"));
        }
        assertThat(counted.keySet()).as("outcomes %s", counted).anyMatch(k -> k.endsWith(" read slowly"));
        assertThat(counted.keySet()).as("outcomes %s", counted).anyMatch(k -> k.contains(" idle end "));
        // One request in twenty or more went on a reused connection (most answers here close theirs).
        assertThat(engine.requests().size() - engine.connections()).isGreaterThan(trialCount() / 20);
    }

    private void count(Trial trial, String outcome) {
        outcomes.computeIfAbsent(trial.path() + " " + outcome, o -> new AtomicInteger())
                .incrementAndGet();
    }

    private void check(Trial trial) {
        RawClient.Answer got;
        try (RawClient client = trial.slow()
                ? RawClient.slow(gateway.server.port(), SLOW_BUFFER, SLOW_PAUSE)
                : new RawClient(gateway.server.port())) {
            client.send(trial.path().request(trial.nonce()));
            got = client.read();
        } catch (IOException e) {
            throw new AssertionError("the client's connection failed before an answer", e);
        }
        trial.answered().countDown();
        if (trial.ending().get()) {
            // The engine ends the connection the answer came on; the next request meets what is left of it.
            try {
                assertThat(trial.ended().await(60, TimeUnit.SECONDS))
                        .as("the engine ended the connection")
                        .isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            count(trial, "idle end " + trial.idleEnd());
        }
        // Every connection carries one answer per request, or is closed: never one the answer said ends.
        assertThat(reusedAfterAnEnd)
                .as("requests sent on a connection after an answer that ends it")
                .isEmpty();
        String body = trial.path().tagged() ? ApiPath.untagged(got.body()) : got.body();
        assertThat(body).doesNotContain(GeneratedAnswers.INJECTED);
        Matcher nonces = NONCE.matcher(body);
        while (nonces.find()) {
            assertThat(nonces.group()).as("a nonce in %s", got).isEqualTo(trial.nonce());
        }
        AtomicInteger played = plays.get(trial.nonce());
        assertThat(played)
                .as("the engine asked for the request answered %s", got)
                .isNotNull();
        int asked = played.get();
        assertThat(asked).as("times the engine was asked").isBetween(1, 2);
        if (asked == 2) {
            assertThat(GeneratedAnswers.resendable(trial.answer()))
                    .as("sent again after an answer that began")
                    .isTrue();
            count(trial, "sent again");
        }
        count(trial, judge(got, body, asked == 1 ? trial.answer() : trial.again(), trial.path()));
        if (trial.slow()) {
            count(trial, "read slowly");
        }
    }

    /**
     * Whether {@code got} (its body {@code body}, ids untagged) is what {@code e} may give on {@code path}; its outcome.
     */
    private static String judge(RawClient.Answer got, String body, Answer e, ApiPath path) {
        boolean gatewayError = path.gatewayError(got);
        if (e.effect() == Effect.NOT_THIS
                || (e.cut() >= 0 && e.cut() < e.finalHeadEnd())
                || e.effect() == Effect.REFUSED) {
            // No answer (what cannot begin a status line, cut before the final head was whole), or one the gateway
            // cannot relay: the gateway's 502.
            assertThat(gatewayError).as("502 for %s", got).isTrue();
            return "error";
        }
        if (e.bodyless() && e.cut() >= 0 && e.reset() && gatewayError) {
            // A reset after the head: the engine's kernel drops what it had not sent yet, the head among it.
            return "error";
        }
        if (e.bodyless()) {
            assertThat(got.status()).isEqualTo(e.status());
            assertThat(got.body()).isEmpty();
            return "exact";
        }
        if (e.cut() < 0 && e.effect() == Effect.RELAYED) {
            assertThat(got.status()).as("%s", got).isEqualTo(e.status());
            assertThat(got.complete()).as("%s", got).isTrue();
            assertThat(body).isEqualTo(e.body());
            if (path.tagged() && !path.events() && e.body().length() <= HELD_LIMIT) {
                // A tagged JSON answer within the hold's limit is held whole and goes out with its new length.
                assertThat(got.header("Content-Length"))
                        .as("%s", got)
                        .isEqualTo(String.valueOf(got.body().getBytes(StandardCharsets.UTF_8).length));
                assertThat(got.header("Transfer-Encoding")).as("%s", got).isNull();
            }
            return "exact";
        }
        // Cut in the body, or its trailers refused: the gateway's 502 (nothing had gone out), or the status and a
        // prefix of the body, cut short unless the body ends with the connection anyway.
        boolean prefix = got.status() == e.status()
                && e.body().startsWith(body)
                && (!got.complete() || (e.untilClose() && e.effect() == Effect.RELAYED));
        assertThat(gatewayError || prefix).as("%s", got).isTrue();
        return gatewayError ? "error" : "cut short";
    }
}
