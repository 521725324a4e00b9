package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.RefusingPort;
import grid.gateway.app.http.Fates.Fate;
import grid.gateway.app.http.Fates.Trial;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The books balance: a seeded run of requests on real sockets (every prompt API, streamed and not, pinned and not),
 * each meeting a generated fate ({@link Fates}: the engine answers 2xx/4xx/5xx, streams, resets, cuts its head or its
 * body, goes silent past each timeout, writes a malformed head or a keep-alive timeout's 408; the client leaves before
 * or during the answer, sends a bad head, a body too large, a wrong method; the model is unknown, its only cluster
 * unreachable and then ejected; a stored id names no cluster, a cluster or a draining one), then the access log and
 * {@code /metrics} are read and must agree exactly with what the clients got and what the engines saw: one line per
 * request with the status its client received and the cluster that served it, every upstream answer, failure and retry
 * counted once by the label the docs give its fate, histograms consistent with the counts, the gauges of work in
 * flight back at 0.
 */
class AccountingPropertyTest {
    private static final long SEED = 20_261_207L;
    private static final int TRIALS = 160;
    private static final int CLIENTS = 4;
    private static final Pattern NONCE = Pattern.compile("zq[0-9]+zq");

    @TempDir
    Path dir;

    private ScriptedUpstream a;
    private ScriptedUpstream b;
    private GatewayHarness gateway;
    private final Map<String, Trial> trials = new ConcurrentHashMap<>();
    /** Each nonce's plays at the engines: the cluster that played it, in order. */
    private final Map<String, List<String>> plays = new ConcurrentHashMap<>();

    private final Map<Socket, Integer> requestsOn = new ConcurrentHashMap<>();

    /** What a client got: the status (-1: none), whether the answer's framing completed, and its body's length. */
    record Got(int status, boolean complete, int bodyBytes) {}

    @BeforeEach
    void start() throws IOException {
        a = new ScriptedUpstream();
        b = new ScriptedUpstream();
        a.script = e -> play("east-a", e);
        b.script = e -> play("east-b", e);
        String sites = GatewayHarness.oneSite(a.url(), b.url())
                + """
                      - name: east-c
                        url: http://127.0.0.1:9
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [demo-model]
                        draining: true
                      - name: east-dead
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [dead-model]
                """.formatted(RefusingPort.shared().url());
        gateway = new GatewayHarness(dir, GatewayHarness.config("  body_timeout_ms: 1500", """
                  upstream:
                    first_byte_timeout_ms: 1500
                    idle_timeout_ms: 1500
                """, sites), a, b);
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    private void play(String cluster, ScriptedUpstream.Exchange e) throws Exception {
        boolean reused = requestsOn.merge(e.socket, 1, Integer::sum) > 1;
        Matcher nonce = NONCE.matcher(e.head + new String(e.body, StandardCharsets.UTF_8));
        Trial trial = nonce.find() ? trials.get(nonce.group()) : null;
        if (trial == null) {
            e.write(Fates.json(200, "{}"));
            return;
        }
        List<String> played = plays.computeIfAbsent(trial.nonce(), n -> new CopyOnWriteArrayList<>());
        played.add(cluster);
        if (played.size() == 1) {
            Fates.play(trial, e, reused);
        } else {
            e.write(Fates.json(200, Fates.answerBody(trial)));
        }
    }

    @Test
    void generatedFates_accessLogAndMetricsAgreeWithWhatClientsGotAndEnginesSaw() throws Exception {
        SplittableRandom random = new SplittableRandom(SEED);
        List<Trial> all = new ArrayList<>();
        for (int n = 0; n < TRIALS; n++) {
            Trial trial = Fates.generate(random, n);
            trials.put(trial.nonce(), trial);
            Trial.ENGINE_GOT.put(trial.nonce(), new CountDownLatch(1));
            Trial.CLIENT_LEFT.put(trial.nonce(), new CountDownLatch(1));
            all.add(trial);
        }
        Map<String, Got> got = ClientsAtOnce.ask(all, CLIENTS, Trial::requestId, this::ask, Duration.ofSeconds(300));
        GatewayHarness.await("every request ended", () -> gateway.server.requestsInFlight() == 0);
        GatewayHarness.await(
                "an access line for each request", () -> gateway.accessLog.raw().size() >= TRIALS);
        Map<String, JsonObject> lines = lines(all);
        Books books = new Books(gateway.metrics());
        for (Trial trial : all) {
            JsonObject line = lines.get(trial.requestId());
            assertThat(line).as("the access line of %s", trial).isNotNull();
            try {
                AccountingChecks.line(
                        trial, got.get(trial.requestId()), line, plays.getOrDefault(trial.nonce(), List.of()));
            } catch (AssertionError e) {
                throw new AssertionError(trial + " got " + got.get(trial.requestId()) + ", logged " + line, e);
            }
        }
        AccountingChecks.books(all, lines, plays, books);
    }

    /** The access lines by request id; fails on a line for no request or two for one. */
    private Map<String, JsonObject> lines(List<Trial> all) {
        Map<String, JsonObject> byId = new HashMap<>();
        List<JsonObject> unread = new ArrayList<>();
        for (String raw : gateway.accessLog.raw()) {
            try (var reader = Json.createReader(new StringReader(raw))) {
                JsonObject line = reader.readObject();
                String id = line.getString("request_id");
                if (!id.startsWith("acct-")) {
                    // A head the parser refused: its X-Request-Id was never read, so its id is a new one.
                    unread.add(line);
                } else {
                    assertThat(byId.put(id, line))
                            .as("a second line for %s: %s", id, line)
                            .isNull();
                }
            }
        }
        for (Trial trial : all) {
            if (trial.fate() == Fate.BAD_REQUEST) {
                JsonObject line = unread.stream()
                        .filter(l -> l.getString("path").equals(trial.api().path))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no line for " + trial));
                unread.remove(line);
                byId.put(trial.requestId(), line);
            }
        }
        assertThat(unread).as("lines of no request").isEmpty();
        assertThat(all)
                .as("requests without an access line")
                .filteredOn(t -> !byId.containsKey(t.requestId()))
                .isEmpty();
        return byId;
    }

    /** Sends {@code trial}'s request on a new connection and reads what comes back as its fate says. */
    private Got ask(Trial trial) throws Exception {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send(Fates.request(trial));
            if (trial.fate() == Fate.CLIENT_GONE_BEFORE) {
                assertThat(Trial.ENGINE_GOT.get(trial.nonce()).await(20, TimeUnit.SECONDS))
                        .isTrue();
                return new Got(-1, false, 0);
            }
            if (trial.fate() == Fate.CLIENT_GONE_RACE) {
                assertThat(Trial.ENGINE_GOT.get(trial.nonce()).await(20, TimeUnit.SECONDS))
                        .isTrue();
                client.close();
                Trial.CLIENT_LEFT.get(trial.nonce()).countDown();
                return new Got(-1, false, 0);
            }
            if (trial.fate() == Fate.BODY_CUT_BY_CLIENT) {
                client.socket.shutdownOutput();
            }
            if (trial.fate() == Fate.CLIENT_GONE_DURING) {
                String text = client.readUntil("{\"n\":0}");
                return new Got(Integer.parseInt(text.substring(9, 12)), false, 0);
            }
            try {
                RawClient.Answer answer = client.read();
                return new Got(
                        answer.status(), answer.complete(), answer.body().getBytes(StandardCharsets.UTF_8).length);
            } catch (IOException e) {
                return new Got(-1, false, 0);
            }
        }
    }

    static boolean isNull(JsonObject line, String field) {
        return line.get(field) == null || line.get(field) == JsonValue.NULL;
    }
}
