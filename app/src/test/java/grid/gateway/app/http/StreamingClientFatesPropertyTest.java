package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.http.StreamFates.Answer;
import grid.gateway.app.http.StreamFates.Fate;
import grid.gateway.app.http.StreamFates.Trial;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client does while its answer streams back, generated from a seed across the four streaming APIs: reads on in
 * reads of any size or a byte at a time, stops reading for longer than the upstream timeouts, half-closes, pipelines a
 * second request, sends junk after its request, resets or closes at any byte, or closes as the last event arrives.
 * Two scripted engines write each stream in two parts, the second once the client has acted, and record whether the
 * gateway let their connection go. Then: the engine's request is cancelled (its connection closed) exactly when the
 * client left before the end; a connection carries exactly one answer per request and is pooled after a whole answer
 * (closed otherwise); every request has one access line with its status, end, cluster and request id; the metrics
 * balance against the lines; the gauges of work and memory in flight are back at 0; nothing waits past a deadline.
 *
 * <p>The seed and the number of trials are fixed; {@code -Dstreams.seed=N -Dstreams.trials=N} explores others by hand.
 */
class StreamingClientFatesPropertyTest {
    private static final long SEED = Long.getLong("streams.seed", 20_261_208L);
    private static final int TRIALS = Integer.getInteger("streams.trials", 120);
    private static final int CLIENTS = 4;
    /**
     * Shorter than the send timeout. The upstream timeouts below are longer than the pause and far longer than any
     * step of a trial, since the engine waits, silent, until its client has acted: a client thread that a loaded
     * machine leaves unscheduled for a while must not make the gateway rightly cut a silent engine.
     */
    private static final long PAUSE_MILLIS = 1_300;
    /**
     * How long an engine whose client left waits for the gateway to cancel its request. Every timeout that could close
     * the engine's connection (send, idle, first byte: {@link #TIMEOUTS_MILLIS}; the pool's idle limit: 60 s) is
     * longer, so a close seen within it is the gateway cancelling at once, however slow the machine: the wait only
     * stops a test whose gateway never cancels, it decides nothing by how fast the cancel came.
     */
    private static final long CANCEL_WAIT_MILLIS = 20_000;
    /** The send and upstream timeouts: longer than {@link #CANCEL_WAIT_MILLIS}, and than the pause. */
    private static final int TIMEOUTS_MILLIS = 45_000;

    private static final Pattern NONCE = Pattern.compile("sq([0-9]+)sq(p?)");

    @TempDir
    Path dir;

    private ScriptedUpstream a;
    private ScriptedUpstream b;
    private GatewayHarness gateway;
    private final Map<Integer, Trial> trials = new ConcurrentHashMap<>();
    private final Map<Integer, CountDownLatch> acted = new ConcurrentHashMap<>();
    private final Map<Integer, CountDownLatch> played = new ConcurrentHashMap<>();
    private final Map<Integer, Saw> saw = new ConcurrentHashMap<>();
    /** The nonce of the last exchange on each engine connection. */
    private final Map<Socket, Integer> lastOn = new ConcurrentHashMap<>();

    /** What an engine saw of a trial's stream: its cluster, and whether the gateway let the connection go. */
    record Saw(String cluster, boolean writeFailed, boolean closed) {}

    /** What a client got: the stream's answer and, by its fate, the pipelined answer or the junk's. */
    record Got(Answer answer, Answer second, boolean endOfStream) {}

    @BeforeEach
    void start() {
        a = new ScriptedUpstream();
        b = new ScriptedUpstream();
        a.script = e -> play("east-a", e);
        b.script = e -> play("east-b", e);
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        "  send_timeout_ms: " + TIMEOUTS_MILLIS + "\n  header_timeout_ms: 2000",
                        """
                          upstream:
                            first_byte_timeout_ms: %d
                            idle_timeout_ms: %d
                        """.formatted(TIMEOUTS_MILLIS, TIMEOUTS_MILLIS),
                        GatewayHarness.oneSite(a.url(), b.url())),
                a,
                b);
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    private void play(String cluster, ScriptedUpstream.Exchange e) throws Exception {
        Matcher nonce = NONCE.matcher(new String(e.body, StandardCharsets.UTF_8));
        if (!nonce.find()) {
            e.write(Fates.json(200, "{}"));
            return;
        }
        int n = Integer.parseInt(nonce.group(1));
        lastOn.put(e.tcp, n);
        Trial trial = trials.get(n);
        if (!nonce.group(2).isEmpty()) {
            e.write(Fates.json(200, "{\"id\":\"cmpl-p\"}"));
            return;
        }
        StringBuilder head = new StringBuilder(ScriptedUpstream.SSE_HEAD);
        for (int i = 0; i < trial.first(); i++) {
            head.append(StreamFates.event(trial, i));
        }
        if (trial.fate() == Fate.CLOSE_AT_LAST) {
            e.write(head + StreamFates.last(trial));
            saw.put(n, new Saw(cluster, false, false));
            played.get(n).countDown();
            return;
        }
        e.write(head.toString());
        assertThat(acted.get(n).await(10, TimeUnit.SECONDS)).isTrue();
        boolean failed = false;
        try {
            for (int i = trial.first(); i < trial.events(); i++) {
                e.write(StreamFates.event(trial, i));
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            e.write(StreamFates.last(trial));
        } catch (IOException closed) {
            failed = true;
        }
        boolean closed = failed;
        if (trial.fate().leaves && !failed) {
            closed = e.awaitPeerClose(CANCEL_WAIT_MILLIS);
        }
        saw.put(n, new Saw(cluster, failed, closed));
        played.get(n).countDown();
        if (closed) {
            e.socket.close();
        }
    }

    @Test
    void generatedClientFatesDuringStreams_engineCancelledExactlyWhenTheClientLeft_booksBalance() throws Exception {
        SplittableRandom random = new SplittableRandom(SEED);
        List<Trial> all = new ArrayList<>();
        for (int n = 0; n < TRIALS; n++) {
            Trial trial = StreamFates.generate(random, n);
            trials.put(n, trial);
            acted.put(n, new CountDownLatch(1));
            played.put(n, new CountDownLatch(1));
            all.add(trial);
        }
        Map<Integer, Got> got = ClientsAtOnce.ask(
                all,
                CLIENTS,
                Trial::n,
                trial -> {
                    Got one = ask(trial);
                    // Longer than the engine's own wait for the cancel: it only stops a hung test.
                    assertThat(played.get(trial.n()).await(2 * CANCEL_WAIT_MILLIS, TimeUnit.MILLISECONDS))
                            .as("the engine played %s", trial)
                            .isTrue();
                    return one;
                },
                Duration.ofSeconds(120));
        GatewayHarness.await("every request ended", () -> gateway.server.requestsInFlight() == 0);
        GatewayHarness.await(
                "an access line for each request",
                () -> lines().keySet()
                        .containsAll(all.stream().map(Trial::requestId).toList()));
        Map<String, JsonObject> lines = lines();
        for (Trial trial : all) {
            try {
                StreamChecks.trial(trial, got.get(trial.n()), saw.get(trial.n()), lines);
            } catch (AssertionError e) {
                throw new AssertionError(
                        trial + " got " + got.get(trial.n()) + ", engine saw " + saw.get(trial.n()) + ", logged "
                                + lines.get(trial.requestId()),
                        e);
            }
        }
        StreamChecks.pooling(all, saw, lastOn, a.closedWhileIdle, b.closedWhileIdle);
        StreamChecks.books(all, got, lines, new Books(gateway.metrics()));
    }

    /** The access lines by request id (a junk request's id is one the gateway made). */
    private Map<String, JsonObject> lines() {
        Map<String, JsonObject> byId = new ConcurrentHashMap<>();
        for (String raw : gateway.accessLog.raw()) {
            try (var reader = Json.createReader(new StringReader(raw))) {
                JsonObject line = reader.readObject();
                assertThat(byId.put(line.getString("request_id"), line))
                        .as("a second line for one request id: %s", line)
                        .isNull();
            }
        }
        return byId;
    }

    /** Sends {@code trial}'s request and does what its fate says while the answer streams. */
    private Got ask(Trial trial) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", gateway.server.port()));
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(StreamFates.request(trial).getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = new ReadSize(socket.getInputStream(), trial.readSize());
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            String until = trial.fate() == Fate.CLOSE_AT_LAST
                    ? StreamFates.lastEventEnd(trial)
                    : "\"n\":" + (trial.first() - 1) + "}\n\n";
            int atMost = trial.fate() == Fate.CLOSE_AT_LAST ? Integer.MAX_VALUE : trial.at();
            while (seen.size() < atMost
                    && !seen.toString(StandardCharsets.ISO_8859_1).contains(until)) {
                int c = in.read();
                if (c < 0) {
                    break;
                }
                seen.write(c);
            }
            switch (trial.fate()) {
                case RESET -> socket.setSoLinger(true, 0);
                case HALF_CLOSE -> socket.shutdownOutput();
                case PIPELINE ->
                    socket.getOutputStream().write(StreamFates.pipelined(trial).getBytes());
                case JUNK -> socket.getOutputStream().write(trial.junk().getBytes(StandardCharsets.ISO_8859_1));
                default -> {
                    // acts by what follows
                }
            }
            if (trial.fate().leaves) {
                socket.close();
                acted.get(trial.n()).countDown();
                Answer part = StreamFates.read(new ByteArrayInputStream(seen.toByteArray()));
                return new Got(part, null, false);
            }
            acted.get(trial.n()).countDown();
            if (trial.fate() == Fate.PAUSE) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PAUSE_MILLIS));
            }
            InputStream rest = new SequenceInputStream(new ByteArrayInputStream(seen.toByteArray()), in);
            Answer answer = StreamFates.read(rest);
            Answer second = trial.fate() == Fate.PIPELINE || trial.fate() == Fate.JUNK ? StreamFates.read(rest) : null;
            // A half-closed client's connection, and one whose junk was refused, end after their last answer.
            boolean endOfStream = (trial.fate() == Fate.HALF_CLOSE || trial.fate() == Fate.JUNK) && endOfStream(rest);
            return new Got(answer, second, endOfStream);
        }
    }

    /** Whether the gateway ends the connection (no more bytes, then its end) within the socket's timeout. */
    private static boolean endOfStream(InputStream in) {
        try {
            return in.read() < 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Reads at most {@code size} bytes a call. */
    private static final class ReadSize extends FilterInputStream {
        private final int size;

        ReadSize(InputStream in, int size) {
            super(in);
            this.size = size;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return super.read(b, off, Math.min(len, size));
        }
    }
}
