package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.tag.ClusterDigest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tagged JSON answer short enough to be held whole, from an engine that trickles it (each byte well within the idle
 * timeout): the hold ends at the first read an idle timeout or more after it began, so the client gets its status and
 * the tagged start of its answer (relayed chunked and tagged as it streams from there) within twice the idle timeout,
 * not only once the engine has finished; an event of a tagged stream, held to be tagged whole, likewise
 * (docs/design.md §H20).
 */
class HeldAnswerIntegrationTest {
    private static final String DIGEST = ClusterDigest.of("east-a");
    private static final String TAGGED = "resp_east." + DIGEST + "..slow";
    private static final int IDLE_TIMEOUT_MS = 500;

    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private GatewayHarness gateway;
    private final CountDownLatch clientHasTheHead = new CountDownLatch(1);

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
    void shortTaggedAnswerTrickledIn_clientGetsItsStatusAndTaggedStartWithinTheIdleTimeout() throws Exception {
        String start = "{\"id\":\"resp_slow\",\"object\":\"response\",\"output_text\":\"";
        String text = "t".repeat(2000);
        String body = start + text + "\"}";
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                    + start);
            // One byte every tenth of the idle timeout, far slower than a hold of the whole answer may wait; the rest
            // at once when the client has its head (or the test gave up: 2000 bytes would take 100 s).
            int i = 0;
            while (i < text.length() && !clientHasTheHead.await(IDLE_TIMEOUT_MS / 10, TimeUnit.MILLISECONDS)) {
                e.write(text.substring(i, i + 1));
                i++;
            }
            e.write(text.substring(i) + "\"}");
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            // Ten idle timeouts for the head: a hold until the engine's end would take 100 s.
            client.socket.setSoTimeout(10 * IDLE_TIMEOUT_MS);
            client.send("GET /v1/responses/" + TAGGED + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            long asked = System.nanoTime();
            String head = client.readHead();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
            clientHasTheHead.countDown();
            client.socket.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
            assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked");
            assertThat(waited)
                    .as("ms before the status went out while the engine trickled")
                    .isLessThan(10L * IDLE_TIMEOUT_MS);
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
    void taggedStreamEventTrickledIn_clientGetsItsTaggedStartWithinTheIdleTimeout() throws Exception {
        String start =
                "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_slow\","
                        + "\"instructions\":\"";
        String text = "i".repeat(2000);
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk(start));
            int i = 0;
            while (i < text.length() && !clientHasTheHead.await(IDLE_TIMEOUT_MS / 10, TimeUnit.MILLISECONDS)) {
                e.write(UpstreamFaultsIntegrationTest.chunk(text.substring(i, i + 1)));
                i++;
            }
            e.write(UpstreamFaultsIntegrationTest.chunk(text.substring(i) + "\"}}\n\n") + "0\r\n\r\n");
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            // Ten idle timeouts for the event's tagged id: a hold until its blank line would take 100 s.
            client.socket.setSoTimeout(10 * IDLE_TIMEOUT_MS);
            assertThat(client.readHead()).startsWith("HTTP/1.1 200");
            String begun = client.readUntil("\"id\":\"" + TAGGED + "\"");
            clientHasTheHead.countDown();
            assertThat(begun).endsWith("\"id\":\"" + TAGGED + "\"");
            client.socket.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
            String rest = client.readUntil("\r\n0\r\n\r\n").replaceAll("\r\n[0-9a-f]+\r\n", "");
            assertThat(rest).contains(text + "\"}}\n\n");
        }
    }

    @Test
    void taggedAnswerWhoseIdIsTrickledIn_clientGetsTheStartOfItsTagWithinTheIdleTimeout() throws Exception {
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
            // Ten idle timeouts for the id's tagged start: a hold until its closing quote would take 20 s.
            client.socket.setSoTimeout(10 * IDLE_TIMEOUT_MS);
            client.send("GET /v1/responses/" + TAGGED + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            assertThat(client.readHead()).startsWith("HTTP/1.1 200");
            readTaggedStartThenTheWholeId(client, id, end);
        }
    }

    @Test
    void taggedStreamEventWhoseIdIsTrickledIn_clientGetsTheStartOfItsTagWithinTheIdleTimeout() throws Exception {
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
            // Ten idle timeouts for the id's tagged start: a hold until its closing quote would take 20 s.
            client.socket.setSoTimeout(10 * IDLE_TIMEOUT_MS);
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

    /** One byte of {@code text} at a time, a tenth of the idle timeout apart, until the client has what it waits for. */
    /**
     * Reads the start of the id's tag (it may come in a chunk of its own), lets the engine end the id, then reads the
     * rest: the whole id, tagged, then {@code end}.
     */
    private void readTaggedStartThenTheWholeId(RawClient client, String id, String end) throws IOException {
        String begun = client.readUntil("resp_east." + DIGEST + "..s");
        clientHasTheHead.countDown();
        client.socket.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
        String rest = (begun + client.readUntil("\r\n0\r\n\r\n")).replaceAll("\r\n[0-9a-f]+\r\n", "");
        assertThat(rest).as("the whole id tagged").contains("\"id\":\"resp_east." + DIGEST + ".." + id + end);
    }

    private String trickled(String text, ByteWrite write) throws Exception {
        int i = 0;
        while (i < text.length() && !clientHasTheHead.await(IDLE_TIMEOUT_MS / 10, TimeUnit.MILLISECONDS)) {
            write.at(i);
            i++;
        }
        return text.substring(i);
    }

    /** Writes the byte at an index of what is trickled. */
    @FunctionalInterface
    private interface ByteWrite {
        void at(int index) throws Exception;
    }
}
