package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.tag.ClusterDigest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tagged JSON answer short enough to be held whole, from an engine that trickles it (each byte well within the idle
 * timeout): the hold ends at the first read an idle timeout or more after it began, so the client gets its status and
 * the tagged start of its answer (relayed chunked and tagged as it streams from there) while the engine still
 * trickles, not only once the engine has finished; an event of a tagged stream, held to be tagged whole, likewise
 * (docs/design.md §H20).
 *
 * <p>The verdict is that order, not a time: the engine trickles until the client has what it waits for, and a trickle
 * run to its end (minutes at the engine's pace) fails the test. The client's read timeout ({@link
 * GatewayHarness#DEADLINE}, shorter than any whole trickle) only stops a test whose gateway holds to the end. The
 * engine's pace is a tenth of the idle timeout, so only a thread left unscheduled for a whole idle timeout makes the
 * gateway rightly cut the engine.
 */
class HeldAnswerIntegrationTest {
    private static final String DIGEST = ClusterDigest.of("east-a");
    private static final String TAGGED = "resp_east." + DIGEST + "..slow";
    private static final int IDLE_TIMEOUT_MS = 2_000;
    /** The client's read timeout: a hold to the end of any trickle here would take longer. */
    private static final int CLIENT_TIMEOUT_MS = (int) GatewayHarness.DEADLINE.toMillis();

    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private GatewayHarness gateway;
    private final CountDownLatch clientHasTheHead = new CountDownLatch(1);
    /** Set when a trickle ran to its end before the client had what it waited for. */
    private final AtomicBoolean ranOut = new AtomicBoolean();

    @BeforeEach
    void start() {
        engine = new ScriptedUpstream();
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        "  upstream:\n    idle_timeout_ms: " + IDLE_TIMEOUT_MS + "\n",
                        GatewayHarness.oneEngine(engine.url())),
                engine);
    }

    @AfterEach
    void stop() {
        clientHasTheHead.countDown();
        gateway.close();
    }

    @Test
    void shortTaggedAnswerTrickledIn_clientGetsItsStatusAndTaggedStartWhileTheEngineTrickles() throws Exception {
        String start = "{\"id\":\"resp_slow\",\"object\":\"response\",\"output_text\":\"";
        String text = "t".repeat(2000);
        String body = start + text + "\"}";
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                    + start);
            // One byte every tenth of the idle timeout, far slower than a hold of the whole answer may wait; the rest
            // at once when the client has its head (2000 bytes would take 400 s).
            e.write(trickled(text, i -> e.write(text.substring(i, i + 1))) + "\"}");
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.socket.setSoTimeout(CLIENT_TIMEOUT_MS);
            client.send("GET /v1/responses/" + TAGGED + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            String head = client.readHead();
            assertThat(ranOut)
                    .as("the engine trickled its whole answer before the status went out")
                    .isFalse();
            clientHasTheHead.countDown();
            assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked");
            String rest = client.readUntil("\r\n0\r\n\r\n").replaceAll("\r\n[0-9a-f]+\r\n", "");
            assertThat(rest).contains("\"id\":\"" + TAGGED + "\"").contains(text + "\"}");
        }
    }

    @Test
    void engineResetsWhileAnAnswerIsHeld_502_memoryGivenBack_nothingOfTheHeldBytesSent() throws Exception {
        // An answer announcing gigabytes: what is held is bounded by the hold's limit, not by the announcement.
        String start = "{\"id\":\"resp_slow\",\"object\":\"response\",\"output_text\":\"" + "h".repeat(1000);
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000000000\r\n\r\n" + start);
            e.reset();
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + TAGGED + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(502);
            assertThat(answer.body()).contains("bad_gateway").doesNotContain("resp_");
        }
        GatewayHarness.await("the request ended", () -> gateway.server.requestsInFlight() == 0);
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
    }

    @Test
    void taggedStreamEventTrickledIn_clientGetsItsTaggedStartWhileTheEngineTrickles() throws Exception {
        String start =
                "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_slow\","
                        + "\"instructions\":\"";
        String text = "i".repeat(2000);
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk(start));
            String left = trickled(text, i -> e.write(UpstreamFaultsIntegrationTest.chunk(text.substring(i, i + 1))));
            e.write(UpstreamFaultsIntegrationTest.chunk(left + "\"}}\n\n") + "0\r\n\r\n");
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            client.socket.setSoTimeout(CLIENT_TIMEOUT_MS);
            assertThat(client.readHead()).startsWith("HTTP/1.1 200");
            String begun = client.readUntil("\"id\":\"" + TAGGED + "\"");
            assertThat(ranOut)
                    .as("the engine trickled its whole event before its tagged id went out")
                    .isFalse();
            clientHasTheHead.countDown();
            assertThat(begun).endsWith("\"id\":\"" + TAGGED + "\"");
            client.socket.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
            String rest = client.readUntil("\r\n0\r\n\r\n").replaceAll("\r\n[0-9a-f]+\r\n", "");
            assertThat(rest).contains(text + "\"}}\n\n");
        }
    }

    @Test
    void taggedAnswerWhoseIdIsTrickledIn_clientGetsTheStartOfItsTagWhileTheEngineTrickles() throws Exception {
        // The id itself comes a byte at a time: the tagger holds an id value until its closing quote, so the hold's
        // bound must reach it too, or the client waits for as long as the engine trickles the id.
        String start = "{\"object\":\"response\",\"id\":\"resp_";
        String id = "s".repeat(400);
        String end = "\",\"status\":\"completed\"}";
        String body = start + id + end;
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                    + start);
            e.write(trickled(id, i -> e.write(id.substring(i, i + 1))) + end);
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.socket.setSoTimeout(CLIENT_TIMEOUT_MS);
            client.send("GET /v1/responses/" + TAGGED + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            assertThat(client.readHead()).startsWith("HTTP/1.1 200");
            readTaggedStartThenTheWholeId(client, id, end);
        }
    }

    @Test
    void taggedStreamEventWhoseIdIsTrickledIn_clientGetsTheStartOfItsTagWhileTheEngineTrickles() throws Exception {
        String start = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_";
        String id = "s".repeat(400);
        String end = "\"}}\n\n";
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk(start));
            String left = trickled(id, i -> e.write(UpstreamFaultsIntegrationTest.chunk(id.substring(i, i + 1))));
            e.write(UpstreamFaultsIntegrationTest.chunk(left + end) + "0\r\n\r\n");
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            client.socket.setSoTimeout(CLIENT_TIMEOUT_MS);
            assertThat(client.readHead()).startsWith("HTTP/1.1 200");
            readTaggedStartThenTheWholeId(client, id, end);
        }
    }

    @Test
    void taggedStreamSilentInsideItsFirstEvent_504InTheApiShape_notAConnectionClosedWithoutAStatus() throws Exception {
        // The first event is held to be tagged whole; the engine then says nothing more: nothing of the answer went
        // to the client, so the idle timeout is the gateway's 504, as for a silence before the first body byte.
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD
                    + UpstreamFaultsIntegrationTest.chunk("event: response.created\ndata: {\"type\""));
            e.awaitPeerClose(10_000);
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(504);
            assertThat(answer.body()).startsWith("{\"error\":").doesNotContain("response.created");
        }
    }

    /**
     * Reads the start of the id's tag (it may come in a chunk of its own), lets the engine end the id, then reads the
     * rest: the whole id, tagged, then {@code end}.
     */
    private void readTaggedStartThenTheWholeId(RawClient client, String id, String end) throws IOException {
        String begun = client.readUntil("resp_east." + DIGEST + "..s");
        assertThat(ranOut)
                .as("the engine trickled the whole id before its tagged start went out")
                .isFalse();
        clientHasTheHead.countDown();
        client.socket.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
        String rest = (begun + client.readUntil("\r\n0\r\n\r\n")).replaceAll("\r\n[0-9a-f]+\r\n", "");
        assertThat(rest).as("the whole id tagged").contains("\"id\":\"resp_east." + DIGEST + ".." + id + end);
    }

    /**
     * Writes one byte of {@code text} at a time, a tenth of the idle timeout apart, until the client has what it waits
     * for; returns what is left, noting when nothing was ({@link #ranOut}).
     */
    private String trickled(String text, ByteWrite write) throws Exception {
        int i = 0;
        while (i < text.length() && !clientHasTheHead.await(IDLE_TIMEOUT_MS / 10, TimeUnit.MILLISECONDS)) {
            write.at(i);
            i++;
        }
        ranOut.set(i == text.length());
        return text.substring(i);
    }

    /** Writes the byte at an index of what is trickled. */
    @FunctionalInterface
    private interface ByteWrite {
        void at(int index) throws Exception;
    }
}
