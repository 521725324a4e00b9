package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.RefusingPort;
import grid.gateway.app.http.BooksMix.Fate;
import grid.gateway.app.http.BooksMix.Trial;
import grid.gateway.app.trace.OtlpReceiver;
import jakarta.json.Json;
import jakarta.json.JsonObject;
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
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The books balance over the fates {@link AccountingPropertyTest} does not draw: a seeded mix on real sockets, with
 * spans exported to a real OTLP receiver, of answers plain and streamed on every prompt API and stored-id GETs,
 * clients that leave before or while the answer streams, engines that reset, cut their stream or stay silent, stored ids pinned to a
 * cluster whose engine refuses connections, paths no row serves, methods refused (with and without a body), bodies
 * over the cap or badly framed, and bodies refused because a held body spends the budget. Once the gateway is idle:
 * one access line per request with the status its client got; the refusal, pinned, affinity, upstream, retry and
 * client-gone counters equal what the mix sent; the gauges of work in flight are 0; the idle connection gauge counts the
 * connections the engines still hold open; one server span per request that reached the proxy, with the status its
 * line gives and the line's abnormal end as its error.type, and one client span per try upstream (a resend marked).
 */
class BooksPropertyTest {
    private static final long SEED = 20_261_214L;
    private static final int TRIALS = 140;
    private static final int CLIENTS = 4;
    private static final int MAX_BODY = 1 << 20;
    private static final Pattern NONCE = Pattern.compile("zb[0-9]+zb");

    @TempDir
    Path dir;

    private ScriptedUpstream a;
    private ScriptedUpstream b;
    private OtlpReceiver receiver;
    private GatewayHarness gateway;
    private boolean closed;
    private final Map<String, Trial> trials = new ConcurrentHashMap<>();
    /** Each nonce's plays at the engines: the cluster that played it, in order. */
    private final Map<String, List<String>> plays = new ConcurrentHashMap<>();

    private final Map<Socket, Integer> requestsOn = new ConcurrentHashMap<>();
    /** Taken exclusively by a budget trial, shared by every other: nothing else holds the budget meanwhile. */
    private final ReadWriteLock budget = new ReentrantReadWriteLock();

    @BeforeEach
    void start() throws IOException {
        a = new ScriptedUpstream();
        b = new ScriptedUpstream();
        a.script = e -> play("east-a", e);
        b.script = e -> play("east-b", e);
        receiver = new OtlpReceiver();
        String sites = GatewayHarness.oneSite(a.url(), b.url())
                + """
                      - name: east-down
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [down-model]
                """.formatted(RefusingPort.shared().url());
        String server = "  max_inflight_body_bytes: " + (3 * MAX_BODY / 2 + 64 * 1024) + "\n  body_timeout_ms: 8000\n";
        String upstream = "  upstream:\n    first_byte_timeout_ms: 1500\n    idle_timeout_ms: 8000\n";
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(server, upstream, sites)
                                .replace("max_body_bytes: 4096", "max_body_bytes: " + MAX_BODY)
                        + "tracing:\n  otlp_endpoint: " + receiver.url() + "\n  service_name: east-gw\n",
                a,
                b);
    }

    @AfterEach
    void stop() {
        if (!closed) {
            gateway.close();
        }
        receiver.close();
    }

    private void play(String cluster, ScriptedUpstream.Exchange e) throws Exception {
        requestsOn.merge(e.socket, 1, Integer::sum);
        Matcher nonce = NONCE.matcher(e.head + new String(e.body, StandardCharsets.UTF_8));
        Trial trial = nonce.find() ? trials.get(nonce.group()) : null;
        if (trial == null) {
            throw new AssertionError("a request of no trial reached " + cluster + ": " + e.head);
        }
        List<String> played = plays.computeIfAbsent(trial.nonce(), n -> new CopyOnWriteArrayList<>());
        played.add(cluster);
        if (played.size() == 1) {
            BooksMix.play(trial, e);
        } else {
            e.write(BooksMix.answer(trial));
        }
    }

    @Test
    void generatedMix_idleGatewayBalancesItsBooks() throws Exception {
        SplittableRandom random = new SplittableRandom(SEED);
        List<Trial> all = new ArrayList<>();
        for (int n = 0; n < TRIALS; n++) {
            Trial trial = BooksMix.generate(random, n);
            trials.put(trial.nonce(), trial);
            BooksMix.ENGINE_GOT.put(trial.nonce(), new CountDownLatch(1));
            BooksMix.CLIENT_LEFT.put(trial.nonce(), new CountDownLatch(1));
            all.add(trial);
        }
        Map<String, AccountingPropertyTest.Got> got =
                ClientsAtOnce.ask(all, CLIENTS, Trial::requestId, this::exclusiveIfBudget, Duration.ofSeconds(300));
        GatewayHarness.await("every request ended", () -> gateway.server.requestsInFlight() == 0);
        List<String> ids = new ArrayList<>();
        for (Trial trial : all) {
            ids.add(trial.requestId());
            if (trial.fate() == Fate.BUDGET) {
                ids.add(trial.requestId() + "-held");
            }
        }
        try {
            GatewayHarness.await(
                    "an access line for each request",
                    () -> gateway.accessLog.raw().size() >= ids.size());
        } catch (AssertionError fewer) {
            // Fewer lines: the assertion below names the requests without one.
        }
        Map<String, JsonObject> lines = lines();
        assertThat(lines.keySet())
                .as("one line per request, the holders' included")
                .containsExactlyInAnyOrderElementsOf(ids);
        for (Trial trial : all) {
            JsonObject line = lines.get(trial.requestId());
            assertThat(line).as("the access line of %s", trial).isNotNull();
            try {
                BooksChecks.line(trial, got.get(trial.requestId()), line, plays.getOrDefault(trial.nonce(), List.of()));
            } catch (AssertionError e) {
                throw new AssertionError(trial + " got " + got.get(trial.requestId()) + ", logged " + line, e);
            }
        }
        BooksChecks.metrics(all, lines, plays, new Books(gateway.metrics()));
        // Every connection the engines hold open is idle in the pool now, and counted there.
        GatewayHarness.await(
                "the idle connection gauge counts the engines' open connections",
                () -> new Books(gateway.metrics()).sum("grid_upstream_idle_connection_bytes")
                        == 8192.0 * (a.open.get() + b.open.get()));
        gateway.close();
        closed = true;
        BooksChecks.spans(all, lines, plays, receiver.await(0, Duration.ZERO));
    }

    private AccountingPropertyTest.Got exclusiveIfBudget(Trial trial) throws Exception {
        var lock = trial.fate() == Fate.BUDGET ? budget.writeLock() : budget.readLock();
        lock.lock();
        try {
            return trial.fate() == Fate.BUDGET ? overBudget(trial) : ask(trial);
        } finally {
            lock.unlock();
        }
    }

    /** The access lines by request id; fails on a line of no request or two for one. */
    private Map<String, JsonObject> lines() {
        Map<String, JsonObject> byId = new HashMap<>();
        for (String raw : gateway.accessLog.raw()) {
            try (var reader = Json.createReader(new StringReader(raw))) {
                JsonObject line = reader.readObject();
                String id = line.getString("request_id");
                assertThat(id).as("a line of no request: %s", line).startsWith("books-");
                assertThat(byId.put(id, line))
                        .as("a second line for %s: %s", id, line)
                        .isNull();
            }
        }
        return byId;
    }

    /**
     * A held body of max_body_bytes spends two thirds of the budget (its last buffer's growth fits: half of it and
     * the whole), then {@code trial}'s body, which needs more than the rest, is refused; the holder then leaves mid-body.
     */
    private AccountingPropertyTest.Got overBudget(Trial trial) throws Exception {
        try (RawClient holder = new RawClient(gateway.server.port())) {
            holder.send(BooksMix.heldHead(trial, "-held", MAX_BODY) + "x".repeat(MAX_BODY - 1));
            GatewayHarness.await(
                    "a body holds the budget",
                    () -> new Books(gateway.metrics()).sum("grid_inflight_body_bytes") >= MAX_BODY);
            AccountingPropertyTest.Got got = ask(trial);
            holder.close();
            // The holder's request ends (its client left mid-body) before any other trial may start.
            GatewayHarness.await(
                    "the held body given back",
                    () -> new Books(gateway.metrics()).sum("grid_inflight_body_bytes") == 0
                            && gateway.server.requestsInFlight() == 0);
            return got;
        }
    }

    /** Sends {@code trial}'s request on a new connection and reads what comes back as its fate says. */
    private AccountingPropertyTest.Got ask(Trial trial) throws Exception {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send(BooksMix.request(trial, MAX_BODY));
            if (trial.fate() == Fate.GONE_BEFORE) {
                assertThat(BooksMix.ENGINE_GOT.get(trial.nonce()).await(20, TimeUnit.SECONDS))
                        .isTrue();
                return new AccountingPropertyTest.Got(-1, false, 0);
            }
            if (trial.fate() == Fate.GONE_DURING) {
                String text = client.readUntil("{\"n\":0}");
                client.close();
                BooksMix.CLIENT_LEFT.get(trial.nonce()).countDown();
                return new AccountingPropertyTest.Got(Integer.parseInt(text.substring(9, 12)), false, 0);
            }
            try {
                RawClient.Answer answer = client.read();
                return new AccountingPropertyTest.Got(
                        answer.status(), answer.complete(), answer.body().getBytes(StandardCharsets.UTF_8).length);
            } catch (IOException e) {
                return new AccountingPropertyTest.Got(-1, false, 0);
            }
        }
    }
}
