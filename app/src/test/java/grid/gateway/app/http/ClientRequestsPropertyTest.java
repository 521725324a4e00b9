package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.http.ClientRequests.Delivery;
import grid.gateway.app.http.ClientRequests.Trial;
import grid.gateway.routing.testing.SeededTrials;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a client sends, generated ({@link ClientRequests}): requests on every route the gateway serves
 * ({@link ClientRoute}), valid or with an oddity of their request line, fields, framing or body
 * ({@link RequestOddities}, {@link FramingOddities}), pipelined, one at a time, trickled, cut by a close or a reset at
 * any byte, or stalled past the body deadline, on real sockets (plain here, over TLS in a subclass) in front of a
 * scripted engine that records every request it gets and echoes its name. For each connection: the engine gets
 * exactly the requests the client sent whole and validly, each once, with its body byte for byte (the tags stripped),
 * and nothing else; every other request gets a 4xx in its API's error shape (never a 5xx, never a hang), the connection
 * closed where its framing is in doubt; answers come in order; the access log has a line per answer. At the end every
 * body and answer byte held is given back. {@link ClientRequestsJudge} judges one connection.
 */
class ClientRequestsPropertyTest extends BehindAFreshGateway {
    private static final Pattern TRIAL = Pattern.compile("(?im)^" + ClientRequests.TRIAL_HEADER + ": *([A-Za-z0-9]+)");
    /** The body deadline of the gateway under test: what a stalled body waits for. */
    static final int BODY_TIMEOUT_MS = 700;

    /** How the checked requests went, by oddity and outcome. */
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();

    /** Trials of one run: each a new client connection. */
    int trialCount() {
        return 400;
    }

    /** Connects a client to the gateway's listener on {@code port}. */
    Socket connect(int port) throws IOException {
        return new Socket("127.0.0.1", port);
    }

    boolean tls() {
        return false;
    }

    @Override
    String config(String oneEngine) {
        return oneEngine.replace("server:\n", "server:\n  body_timeout_ms: " + BODY_TIMEOUT_MS + "\n");
    }

    @BeforeEach
    void echoEveryRequest() {
        engine.script = e -> {
            Matcher name = TRIAL.matcher(e.head);
            String nonce = name.find() ? name.group(1) : "none";
            String json = "{\"echo\":\"" + nonce + "\"}";
            if (new String(e.body, StandardCharsets.ISO_8859_1).contains("\"stream\":true")) {
                e.write(ScriptedUpstream.SSE_HEAD + chunk("data: " + json + "\n\n") + chunk("data: [DONE]\n\n")
                        + "0\r\n\r\n");
            } else {
                e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + json.length()
                        + "\r\n\r\n" + json);
            }
        };
    }

    private static String chunk(String data) {
        return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
    }

    @Test
    void generatedClientRequestsOnEveryRoute_forwardedWholeAndOnceOrRefusedInTheApisShape() {
        AtomicInteger answered = new AtomicInteger();
        SeededTrials.forAll(
                20_261_208L,
                trialCount(),
                random -> ClientRequests.generate(random, nextTrial(), tls()),
                trial -> answered.addAndGet(check(trial)));
        Map<String, Integer> counted = new TreeMap<>();
        outcomes.forEach((k, v) -> counted.put(k, v.get()));
        System.out.println("ClientRequestsPropertyTest outcomes: " + counted);
        GatewayHarness.await("every request ended", () -> gateway.server.requestsInFlight() == 0);
        // One access line a request: no request id twice, none a server error (a 501 or 505 is a client's).
        List<String> lines = gateway.accessLog.raw();
        assertThat(lines.size()).isGreaterThanOrEqualTo(answered.get());
        assertThat(lines.stream()
                        .map(l -> l.substring(0, l.indexOf(",\"method\"")))
                        .distinct())
                .hasSize(lines.size());
        assertThat(lines).noneMatch(l -> l.matches("(?s).*\"status\":50[0234],.*"));
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
        assertThat(gateway.metric("grid_inflight_body_bytes", "")).isZero();
        // Every kind of delivery and outcome was met.
        assertThat(counted.keySet())
                .as("outcomes %s", counted)
                .contains("forwarded", "refused", "delivery PIPELINED", "delivery STALLED", "delivery CUT_BY_RESET");
        // A chunk size line that cannot be one, as the last bytes sent, was refused as such (not at the deadline).
        assertThat(counted.keySet())
                .as("outcomes %s", counted)
                .anyMatch(k -> k.startsWith("refused chunk size ") && k.endsWith(", nothing sent after it 400"));
    }

    private final AtomicInteger trials = new AtomicInteger();

    private int nextTrial() {
        return trials.getAndIncrement();
    }

    void count(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
    }

    /** Runs one trial and judges it; the number of final answers the client read. */
    private int check(Trial trial) {
        count("delivery " + trial.delivery());
        ClientRequestsJudge judge;
        try (Socket socket = connect(gateway.server.port())) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(trial.delivery() == Delivery.STALLED ? BODY_TIMEOUT_MS + 10_000 : 10_000);
            judge = new ClientRequestsJudge(trial, new ClientAnswers(socket.getInputStream()), this::count);
            send(trial, socket, judge);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        GatewayHarness.await("the trial's requests ended", () -> gateway.server.requestsInFlight() == 0);
        judge.engineGot(engine.requests().stream()
                .filter(r -> TRIAL.matcher(r.head()).find())
                .filter(r -> ClientRequestsJudge.nonceOf(r.head()).matches("t" + trial.number() + "[rg][0-9]+x"))
                .toList());
        judge.identified()
                .forEach((id, status) -> GatewayHarness.await(
                        "the access line of " + id + " with its status " + status,
                        () -> gateway.accessLog.raw().stream()
                                .anyMatch(l -> l.contains("\"request_id\":\"" + id + "\"")
                                        && l.contains("\"status\":" + status + ","))));
        return judge.identified().size();
    }

    /** Sends the trial's bytes as its delivery says, the judge reading the answers as they are due. */
    private static void send(Trial trial, Socket socket, ClientRequestsJudge judge) throws IOException {
        OutputStream out = socket.getOutputStream();
        byte[] all = ClientRequests.bytes(trial.wire());
        switch (trial.delivery()) {
            case PIPELINED, STALLED -> {
                quietly(out, all);
                judge.readAll(null);
            }
            case ONE_AT_A_TIME -> judge.readAll(r -> quietly(out, ClientRequests.bytes(r.wire())));
            case TRICKLED -> {
                Thread writer = Thread.ofVirtual().start(() -> trickle(out, all, trial.number()));
                judge.readAll(null);
                join(writer);
            }
            case CUT_BY_CLOSE -> {
                quietly(out, java.util.Arrays.copyOf(all, trial.cutAt()));
                try {
                    socket.shutdownOutput();
                } catch (IOException gone) {
                    // the gateway closed first
                }
                judge.readCut();
            }
            case CUT_BY_RESET -> {
                quietly(out, java.util.Arrays.copyOf(all, trial.cutAt()));
                socket.setSoLinger(true, 0);
                socket.close();
                judge.reset();
            }
        }
    }

    /** Writes {@code bytes}; a connection the gateway already closed takes no more (its answer is still read). */
    private static void quietly(OutputStream out, byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException closed) {
            // The gateway refused and closed: what it answered is judged.
        }
    }

    /** Writes in pieces of 1 to 64 bytes, about a millisecond apart: well within the body deadline. */
    private static void trickle(OutputStream out, byte[] bytes, int seed) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        int at = 0;
        try {
            while (at < bytes.length) {
                int n = Math.min(bytes.length - at, 1 + random.nextInt(64));
                out.write(bytes, at, n);
                out.flush();
                at += n;
                LockSupport.parkNanos(random.nextInt(300_000));
            }
        } catch (IOException closed) {
            // refused and closed
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
