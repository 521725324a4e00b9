package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.tag.TagKeyRing;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request still waiting for its engine at the shutdown grace deadline, its client given no byte of an answer yet:
 * the cut closes the client connection without an answer, and the request has one access line, ending
 * {@code shutdown_cut} with no status, as a request whose client left before its answer has. The cut is not taken for
 * a gateway fault: no 500 (which Helidon gives a handler that answered nothing), no WARNING of an internal error, and
 * no second, unrouted line for the same request. Three places to wait: before the engine's head, after a stream's
 * head but before its first event (the head is not relayed before the first body bytes), and inside the client's own
 * body, which is no client fault then: not refused as unreadable. A pinned request waits for its one cluster the
 * same way.
 */
class ShutdownCutBeforeAnswerIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String STREAM =
            "{\"model\":\"demo-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @TempDir
    Path dir;

    private GatewayHarness gateway;
    private final CountDownLatch release = new CountDownLatch(1);
    /** Counted down where the engine holds the request, once the gateway has read all it sent. */
    private final CountDownLatch holding = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void cutWhileTheEngineHasNotAnswered_connectionClosedWithoutAnAnswer_oneLineWithoutStatus() throws Exception {
        ScriptedUpstream engine = new ScriptedUpstream();
        engine.script = e -> {
            holding.countDown();
            release.await(30, TimeUnit.SECONDS);
        };
        cutWhileWaiting(engine, CHAT);
    }

    @Test
    void cutAfterTheStreamsHeadBeforeItsFirstEvent_connectionClosedWithoutAnAnswer_oneLineWithoutStatus()
            throws Exception {
        ScriptedUpstream engine = new ScriptedUpstream();
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD);
            e.awaitReadByTheGateway();
            holding.countDown();
            release.await(30, TimeUnit.SECONDS);
        };
        cutWhileWaiting(engine, STREAM);
    }

    @Test
    void cutWhileTheBodyIsStillArriving_notARefusal_connectionClosedWithoutAnAnswer_oneLineWithoutStatus()
            throws Exception {
        ScriptedUpstream engine = new ScriptedUpstream();
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneSite(engine.url())), engine);
        try (Socket client = new Socket();
                CapturedLog refusals = CapturedLog.of(ParseRefusal.class)) {
            client.connect(new java.net.InetSocketAddress("127.0.0.1", gateway.server.port()), 5_000);
            client.setSoTimeout(20_000);
            // A head announcing 1000 bytes, and 9 of them: the gateway waits for the rest.
            client.getOutputStream()
                    .write(("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: 1000\r\n\r\n{\"model\":")
                            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            client.getOutputStream().flush();
            GatewayHarness.await("the request in flight", () -> gateway.server.requestsInFlight() == 1);

            GatewayServer.ShutdownReport report = gateway.server.shutdown(Duration.ofMillis(200));

            assertThat(report.cut()).isEqualTo(1);
            assertThat(readToTheEnd(client.getInputStream()))
                    .as("what the client got")
                    .isEmpty();
            JsonObject line = gateway.accessLog.next();
            assertThat(line.getString("end")).isEqualTo("shutdown_cut");
            assertThat(line.get("status")).as("no answer went out").isEqualTo(JsonValue.NULL);
            assertThat(line.getInt("bytes_out")).isZero();
            assertThat(gateway.accessLog.raw()).as("no second line").isEmpty();
            assertThat(refusals.messages()).as("no internal error logged").isEmpty();
            assertThat(engine.requests()).as("nothing forwarded").isEmpty();
        }
    }

    @Test
    void pinnedRequestCutWhileItsClusterHasNotAnswered_connectionClosedWithoutAnAnswer_oneLineWithoutStatus()
            throws Exception {
        ScriptedUpstream engine = new ScriptedUpstream();
        engine.script = e -> {
            holding.countDown();
            release.await(30, TimeUnit.SECONDS);
        };
        String key = "cut-pinned-key-Hq4Zr8Vw2Lm6";
        Path keyFile = java.nio.file.Files.writeString(dir.resolve("tag-key"), key + "\n");
        String digest = ClusterDigest.of("east-a");
        String stored = "resp_east." + digest + "." + TagKeyRing.parse(key).sign("east", digest) + ".e1";
        gateway = new GatewayHarness(
                dir, GatewayHarness.config("  tag_key_path: " + keyFile, GatewayHarness.oneSite(engine.url())), engine);
        try (RawHttp client = new RawHttp(gateway.server.port());
                CapturedLog refusals = CapturedLog.of(ParseRefusal.class)) {
            client.send("GET /v1/responses/" + stored + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            assertThat(holding.await(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();

            GatewayServer.ShutdownReport report = gateway.server.shutdown(Duration.ofMillis(200));

            assertThat(report.cut()).isEqualTo(1);
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.text()).as("what the client got").isEmpty();
            assertThat(reply.closed()).isTrue();
            JsonObject line = gateway.accessLog.next();
            assertThat(line.getBoolean("pinned")).isTrue();
            assertThat(line.getString("end")).isEqualTo("shutdown_cut");
            assertThat(line.get("status")).isEqualTo(JsonValue.NULL);
            assertThat(gateway.accessLog.raw()).as("no second line").isEmpty();
            assertThat(refusals.messages()).as("no internal error logged").isEmpty();
        }
    }

    private void cutWhileWaiting(ScriptedUpstream engine, String body) throws Exception {
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneSite(engine.url())), engine);
        try (Socket client = new Socket();
                CapturedLog refusals = CapturedLog.of(ParseRefusal.class)) {
            InputStream in = RawHttp.postChat(client, gateway.server.port(), 64 * 1024, 20_000, body);
            // The engine holds the request: the gateway waits on it.
            assertThat(holding.await(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();

            GatewayServer.ShutdownReport report = gateway.server.shutdown(Duration.ofMillis(200));

            assertThat(report.cut()).isEqualTo(1);
            assertThat(readToTheEnd(in)).as("what the client got").isEmpty();
            JsonObject line = gateway.accessLog.next();
            assertThat(line.get("method")).as("the request's own line").hasToString("\"POST\"");
            assertThat(line.getString("end")).isEqualTo("shutdown_cut");
            assertThat(line.get("status")).isEqualTo(JsonValue.NULL);
            assertThat(line.getString("cluster")).isEqualTo("east-a");
            assertThat(gateway.accessLog.raw()).as("no second line").isEmpty();
            assertThat(refusals.messages()).as("no internal error logged").isEmpty();
        }
    }

    /** What the client reads until the gateway closes the connection (a reset ends it too). */
    private static String readToTheEnd(InputStream in) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                got.write(buffer, 0, n);
            }
        } catch (IOException reset) {
            // closed with a reset: nothing more to read
        }
        return got.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
