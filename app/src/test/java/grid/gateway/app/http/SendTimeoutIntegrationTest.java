package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.tls.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The send timeout on real sockets, for what the relay's own cut does not cover and for what it must not cut.
 *
 * <ul>
 *   <li>A client that pipelines requests the gateway answers itself (404s), or admin pages, and reads none of their
 *       answers: once the socket buffers are full a write blocks, and the connection is closed after the send
 *       timeout, counted in {@code grid_client_send_timeouts_total}.
 *   <li>A client that reads a long answer steadily but slower than the engine writes it: the kernel wakes the
 *       gateway's blocked write only once a third of the socket's send buffer (grown to MiB on loopback) is free, so
 *       one write waits longer than the send timeout although the client takes bytes all along. It gets its whole
 *       answer, byte for byte, and nothing is cut.
 * </ul>
 *
 * <p>What is asserted is the outcome, not when it comes: the timing rule itself is tested on a manual clock
 * ({@code IdleAlarmTest}, {@code SendWatchTest}).
 */
class SendTimeoutIntegrationTest {
    @TempDir
    Path dir;

    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private void start(String sendTimeout, ScriptedUpstream.Script script) {
        start(sendTimeout, "", Optional.empty(), script);
    }

    private void start(String sendTimeout, String tls, Optional<SSLContext> clientTls, ScriptedUpstream.Script script) {
        start(sendTimeout, "127.0.0.1", tls, clientTls, script);
    }

    private void start(
            String sendTimeout,
            String host,
            String tls,
            Optional<SSLContext> clientTls,
            ScriptedUpstream.Script script) {
        ScriptedUpstream engine = new ScriptedUpstream();
        engine.script = script;
        if (!host.equals("127.0.0.1")) {
            gateway = GatewayHarness.onConfigHost(
                    dir,
                    GatewayHarness.config(
                            "  send_timeout_ms: " + sendTimeout + "\n  host: \"" + host + "\"",
                            "",
                            GatewayHarness.oneEngine(engine.url())),
                    engine);
            return;
        }
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        "  send_timeout_ms: " + sendTimeout + "\n" + tls, "", GatewayHarness.oneEngine(engine.url())),
                clientTls,
                engine);
    }

    @Test
    void clientPipelinesRequestsTheGatewayAnswersItself_readsNone_cutAfterTheSendTimeout() throws Exception {
        start("300", e -> {});
        String notFound = "GET /not/served/" + "x".repeat(200) + " HTTP/1.1\r\nHost: gw\r\n\r\n";

        pipelineAndStall(gateway.server.port(), notFound, "listener=\"client\"");
    }

    @Test
    void clientPipelinesAdminPagesReadsNone_cutAfterTheSendTimeout() throws Exception {
        start("300", e -> {});

        pipelineAndStall(
                gateway.server.adminPort(), "GET /health/ready HTTP/1.1\r\nHost: gw\r\n\r\n", "listener=\"admin\"");
    }

    /**
     * Sends {@code request} again and again on one connection without reading, until the gateway stops taking them
     * (its writes are blocked, so it reads no further request); then waits for the cut, and checks that what the
     * client can still read ends.
     */
    private void pipelineAndStall(int port, String request, String listener) throws Exception {
        try (SocketChannel client = SocketChannel.open()) {
            client.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4096);
            client.connect(new InetSocketAddress("127.0.0.1", port));
            client.configureBlocking(false);
            ByteBuffer one = ByteBuffer.wrap(request.getBytes(StandardCharsets.ISO_8859_1));
            long taken = 0;
            // Until a write takes nothing for a while: the gateway's answers fill the client's buffers, its write
            // blocks, it reads no more requests, and the client's own send buffer fills.
            try {
                for (int idle = 0; idle < 100; ) {
                    one.rewind();
                    int n = client.write(one);
                    taken += n;
                    if (n == 0) {
                        idle++;
                        LockSupport.parkNanos(5_000_000);
                    }
                }
            } catch (IOException closedByTheGateway) {
                // The cut came while the client was still sending: what follows checks it was the send timeout's.
            }
            assertThat(taken).isPositive();

            GatewayHarness.await(
                    "the stalled client's connection was cut",
                    () -> gateway.metric("grid_client_send_timeouts_total", listener) == 1);
            client.configureBlocking(true);
            assertThat(drainsToTheEnd(client.socket())).isTrue();
        }
        GatewayHarness.await("no request left in flight", () -> gateway.server.requestsInFlight() == 0);
    }

    /** Reads what is left until the connection ends (end of stream or reset); false if it stays open. */
    private static boolean drainsToTheEnd(Socket socket) throws IOException {
        socket.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
        byte[] buffer = new byte[64 * 1024];
        try {
            InputStream in = socket.getInputStream();
            while (in.read(buffer) >= 0) {
                // what the gateway had written before the cut
            }
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    @Test
    void clientReadsALongAnswerSteadilyButSlowerThanTheEngine_neverCut_wholeAnswerByteExact() throws Exception {
        readsSteadily(new Socket(), "", Optional.empty());
    }

    @Test
    void clientReadsALongAnswerSteadilyOverTls_neverCut_wholeAnswerByteExact() throws Exception {
        TestPki pki = TestPki.create(dir, "steady-tls");
        TestPki.Pair listener = pki.issue("gateway");
        String tls = listener.serverTls();
        readsSteadily(pki.trustOnly().getSocketFactory().createSocket(), tls, Optional.of(pki.trustOnly()));
    }

    @Test
    void clientReadsALongAnswerSteadilyOnIpv6Loopback_neverCut_wholeAnswerByteExact() throws Exception {
        readsSteadily(new Socket(), "::1", "", Optional.empty());
    }

    @Test
    void clientReadsALongTaggedAnswerSteadilyOverTls_neverCut_wholeTaggedAnswer() throws Exception {
        TestPki pki = TestPki.create(dir, "steady-tagged");
        TestPki.Pair listener = pki.issue("gateway");
        String body = AnswerMemoryIntegrationTest.storedResponse(5 << 20);
        start(
                "2000",
                listener.serverTls(),
                Optional.of(pki.trustOnly()),
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                        + "\r\n\r\n" + body));
        String end = "\r\n0\r\n\r\n";
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        try (Socket client = pki.trustOnly().getSocketFactory().createSocket()) {
            client.setReceiveBufferSize(64 * 1024);
            client.connect(new InetSocketAddress("127.0.0.1", gateway.server.port()), 5_000);
            client.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
            client.getOutputStream()
                    .write(("GET /v1/responses/" + AnswerMemoryIntegrationTest.TAGGED_BIG
                                    + " HTTP/1.1\r\nHost: gw\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = client.getInputStream();
            assertThat(readHead(in)).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked");
            // Tagged as it streams (many small writes, a flush per read), chunked, over TLS; read at about 400 KB a
            // second, as the untagged answer above: one blocked write outlasts the send timeout while the client reads.
            byte[] buffer = new byte[8 * 1024];
            for (String last = ""; !last.endsWith(end); ) {
                int n = in.read(buffer);
                assertThat(n)
                        .as("the answer ended after %d bytes", received.size())
                        .isPositive();
                received.write(buffer, 0, n);
                last += new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                last = last.substring(Math.max(0, last.length() - end.length()));
                LockSupport.parkNanos(20_000_000);
            }
        }
        String chunked = "\r\n" + received.toString(StandardCharsets.ISO_8859_1);
        String dechunked = chunked.substring(0, chunked.length() - end.length()).replaceAll("\r\n[0-9a-f]+\r\n", "");
        assertThat(dechunked).isEqualTo(AnswerMemoryIntegrationTest.tagged(body));
        assertThat(gateway.metric("grid_client_send_timeouts_total", "listener=\"client\""))
                .isZero();
    }

    private void readsSteadily(Socket socket, String tls, Optional<SSLContext> clientTls) throws Exception {
        readsSteadily(socket, "127.0.0.1", tls, clientTls);
    }

    /** {@code host}: the listeners' address; {@code listener}: the client listener's TLS keys in the server block. */
    private void readsSteadily(Socket socket, String host, String listener, Optional<SSLContext> clientTls)
            throws Exception {
        byte[] body = answer(5 << 20);
        start("2000", host, listener, clientTls, e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n");
            e.out.write(body);
            e.out.flush();
        });

        try (Socket client = socket) {
            InputStream in = RawHttp.postChat(
                    client,
                    host,
                    gateway.server.port(),
                    64 * 1024,
                    (int) GatewayHarness.DEADLINE.toMillis(),
                    UpstreamFaultsIntegrationTest.CHAT);
            String head = readHead(in);
            assertThat(head).startsWith("HTTP/1.1 200").contains("Content-Length: " + body.length);

            // About 400 KB a second, in reads of 8 KiB: a third of a 4 MiB send buffer takes over three seconds
            // to free, longer than the send timeout, while the client never pauses for more than 20 ms.
            ByteArrayOutputStream received = new ByteArrayOutputStream(body.length);
            byte[] buffer = new byte[8 * 1024];
            while (received.size() < body.length) {
                int n = in.read(buffer, 0, Math.min(buffer.length, body.length - received.size()));
                assertThat(n)
                        .as("the answer ended after %d of %d bytes", received.size(), body.length)
                        .isPositive();
                received.write(buffer, 0, n);
                LockSupport.parkNanos(20_000_000);
            }

            assertThat(Arrays.equals(received.toByteArray(), body)).isTrue();
        }
        assertThat(gateway.metric("grid_client_send_timeouts_total", "listener=\"client\""))
                .isZero();
        GatewayHarness.await("the request ended", () -> gateway.server.requestsInFlight() == 0);
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
    }

    @Test
    void clientPausesMostOfTheSendTimeoutThenTakesAll_repeatedly_neverCut() throws Exception {
        // Paused 1.2 s of a 2 s timeout, six times: a watcher that added up the time writes were blocked, instead of
        // timing each stretch without progress, cuts at the second pause. The test's thread can be late on a busy
        // machine, and a client that truly took nothing for the send timeout is rightly cut: so each pause is
        // measured as the client took it (from the start of its last read that took bytes to the return of its next
        // one, an upper bound of the stretch the kernel saw without progress), and a cut is a failure only after a
        // pause shorter than the send timeout.
        int sendTimeoutMs = 2000;
        String event = UpstreamFaultsIntegrationTest.chunk("data: {\"t\":\"" + "z".repeat(8 * 1024) + "\"}\n\n");
        start(Integer.toString(sendTimeoutMs), endless(event));
        long longest = 0;
        try (Socket client = new Socket()) {
            InputStream in = openStream(client);
            byte[] buffer = new byte[64 * 1024];
            long lastTook = System.nanoTime();
            assertThat(in.read(buffer)).as("the stream's first bytes").isPositive();
            for (int pause = 0; pause < 6; pause++) {
                // Nothing taken for three fifths of the send timeout (the gateway's writes block meanwhile) ...
                LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(sendTimeoutMs * 3L / 5));
                // ... then everything the socket holds, and at least a read's worth.
                boolean first = true;
                do {
                    long asked = System.nanoTime();
                    int n = readOrCut(in, buffer);
                    if (first) {
                        longest = Math.max(longest, System.nanoTime() - lastTook);
                        first = false;
                    }
                    if (n <= 0) {
                        System.out.printf("cut at pause %d, the longest %d ms%n", pause, longest / 1_000_000);
                        // Cut: rightly only if the client really took nothing for the send timeout.
                        assertThat(java.time.Duration.ofNanos(longest))
                                .as("cut at pause %d, though the client's longest pause was shorter", pause)
                                .isGreaterThanOrEqualTo(java.time.Duration.ofMillis(sendTimeoutMs));
                        return;
                    }
                    lastTook = asked;
                } while (in.available() > 0);
            }
        }
        System.out.printf("six pauses, the longest %d ms, never cut%n", longest / 1_000_000);
        assertThat(gateway.metric("grid_client_send_timeouts_total", "listener=\"client\""))
                .isZero();
    }

    /** Reads into {@code buffer}: the bytes read, or -1 once the gateway ended or reset the connection. */
    private static int readOrCut(InputStream in, byte[] buffer) {
        try {
            return in.read(buffer);
        } catch (IOException reset) {
            return -1;
        }
    }

    @Test
    void sendTimeoutLengthenedByAReloadDuringAStream_clientPausingPastTheOldOne_neverCut() throws Exception {
        ScriptedUpstream engine = new ScriptedUpstream();
        String event = UpstreamFaultsIntegrationTest.chunk("data: {\"t\":\"" + "r".repeat(8 * 1024) + "\"}\n\n");
        engine.script = endless(event);
        Path file = dir.resolve("gateway.yaml");
        String sites = GatewayHarness.oneEngine(engine.url());
        Files.writeString(file, GatewayHarness.config("  send_timeout_ms: 300\n", "", sites));
        gateway = GatewayHarness.fromFile(file, engine);
        try (Socket client = new Socket()) {
            InputStream in = openStream(client);
            // The stream began under a 300 ms send timeout; a reload lengthens it to a minute (applied live).
            Files.writeString(file, GatewayHarness.config("  send_timeout_ms: 60000\n", "", sites));
            gateway.server.reloadNow();
            // Nothing taken for five of the former timeouts (the gateway's writes block meanwhile), then a MiB.
            LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1500));
            byte[] buffer = new byte[64 * 1024];
            for (long read = 0; read < (1 << 20); ) {
                int n = in.read(buffer);
                assertThat(n)
                        .as("the stream goes on after %d bytes read past the pause", read)
                        .isPositive();
                read += n;
            }
        }
        assertThat(gateway.metric("grid_client_send_timeouts_total", "listener=\"client\""))
                .isZero();
    }

    /** A JSON answer of about {@code size} bytes whose every position is told apart from its neighbours. */
    private static byte[] answer(int size) {
        StringBuilder json = new StringBuilder(size + 64).append("{\"id\":\"chatcmpl-1\",\"filler\":\"");
        for (int i = 0; json.length() < size; i++) {
            json.append(Integer.toString(i, 36)).append('.');
        }
        return json.append("\"}").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            if (head.size() >= 4 && head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                break;
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** An engine that streams {@code event} (a whole chunk) for ever, until the gateway closes the stream. */
    private static ScriptedUpstream.Script endless(String event) {
        return e -> {
            e.write(ScriptedUpstream.SSE_HEAD);
            try {
                while (true) {
                    e.write(event);
                }
            } catch (IOException cut) {
                // The test is over and the gateway closed the stream.
            }
        };
    }

    /** Asks for a stream on {@code client} (a 64 KiB receive buffer) and reads its 200 head; returns the body. */
    private InputStream openStream(Socket client) throws IOException {
        InputStream in = RawHttp.postChat(
                client,
                gateway.server.port(),
                64 * 1024,
                (int) GatewayHarness.DEADLINE.toMillis(),
                UpstreamFaultsIntegrationTest.STREAM);
        assertThat(readHead(in)).startsWith("HTTP/1.1 200");
        return in;
    }
}
