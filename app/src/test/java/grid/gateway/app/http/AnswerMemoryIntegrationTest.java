package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.forward.BodyTail;
import grid.gateway.routing.tag.ClusterDigest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Answer memory on real sockets (docs/design.md §H20): a stored response far larger than any buffer (its echoed
 * instructions) is tagged as it streams, so its tagged id reaches the client while the engine is still writing, and
 * clients that fetch it and stop reading hold a bounded, counted amount each ({@code grid_inflight_answer_bytes}),
 * whatever the answer's size: not the answer.
 */
class AnswerMemoryIntegrationTest extends BehindAFreshGateway {
    private static final String DIGEST = ClusterDigest.of("east-a");
    static final String TAGGED_BIG = "resp_east." + DIGEST + "..big";
    /** What one answer may hold, counted: its copy buffer and the held start of a tagged JSON answer. */
    private static final long PER_ANSWER = 128 * 1024;

    private final CountDownLatch clientHasTheId = new CountDownLatch(1);

    /** A stored response of about {@code size} bytes: its id first, its previous_response_id after the instructions. */
    static String storedResponse(int size) {
        return "{\"id\":\"resp_big\",\"object\":\"response\",\"instructions\":\"" + "i".repeat(size)
                + "\",\"previous_response_id\":\"resp_prev\",\"conversation\":{\"id\":\"conv_c\"}}";
    }

    static String tagged(String json) {
        return json.replace("resp_big", TAGGED_BIG)
                .replace("resp_prev", "resp_east." + DIGEST + "..prev")
                .replace("conv_c", "conv_east." + DIGEST + "..c");
    }

    @Test
    void largeStoredResponse_taggedIdReachesTheClientWhileTheEngineIsStillWriting() throws Exception {
        String body = storedResponse(8 << 20);
        int split = 256 * 1024;
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                    + body.substring(0, split));
            // The rest only once the client has the tagged id (or the test gave up waiting).
            clientHasTheId.await(20, TimeUnit.SECONDS);
            e.write(body.substring(split));
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + TAGGED_BIG + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            String head = client.readHead();
            assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked");
            client.socket.setSoTimeout(10_000);
            assertThat(readUntil(client, "\"id\":\"" + TAGGED_BIG + "\"")).isTrue();
            clientHasTheId.countDown();
            String rest = readChunkedToTheEnd(client);
            assertThat(rest).endsWith(tagged(body).substring(tagged(body).length() - 200));
        }
        assertThat(engine.take().head).startsWith("GET /v1/responses/resp_big ");
    }

    @Test
    void clientsStalledOnALargeStoredResponse_answerMemoryCountedAndBoundedPerAnswer() throws Exception {
        int clients = 6;
        String body = storedResponse(4 << 20);
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body);
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Socket socket = new Socket();
                socket.setReceiveBufferSize(4096);
                socket.connect(new InetSocketAddress("127.0.0.1", gateway.server.port()), 5_000);
                socket.setSoTimeout(10_000);
                socket.getOutputStream()
                        .write(("GET /v1/responses/" + TAGGED_BIG + " HTTP/1.1\r\nHost: gw\r\n\r\n")
                                .getBytes(StandardCharsets.ISO_8859_1));
                stalled.add(socket);
                // The answer has begun (its head and first bytes are here); nothing more is read.
                assertThat(readSome(socket.getInputStream())).startsWith("HTTP/1.1 200");
            }
            GatewayHarness.await("every answer in flight", () -> gateway.server.requestsInFlight() == clients);

            double held = gateway.metric("grid_inflight_answer_bytes", "");
            System.out.printf(
                    "answer memory: %d clients stalled on a %d-byte stored response hold %.0f bytes counted%n",
                    clients, body.length(), held);

            // Counted, and bounded per answer: each holds buffers, not its 4 MiB answer.
            assertThat(held).isPositive().isLessThanOrEqualTo((double) clients * PER_ANSWER);
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
        GatewayHarness.await("the answers ended", () -> gateway.server.requestsInFlight() == 0);
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
    }

    @Test
    void clientsStalledOnALargeUntaggedAnswer_itsKeptTailCountedToo() throws Exception {
        int clients = 4;
        String body = "{\"id\":\"chatcmpl-1\",\"choices\":[{\"text\":\"" + "t".repeat(4 << 20) + "\"}]}";
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body);
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Socket socket = new Socket();
                socket.setReceiveBufferSize(4096);
                socket.connect(new InetSocketAddress("127.0.0.1", gateway.server.port()), 5_000);
                socket.setSoTimeout(10_000);
                String request = "{\"model\":\"demo-model\",\"prompt\":\"hi\"}";
                socket.getOutputStream()
                        .write(("POST /v1/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                                        + "Content-Length: " + request.length() + "\r\n\r\n" + request)
                                .getBytes(StandardCharsets.ISO_8859_1));
                stalled.add(socket);
                assertThat(readSome(socket.getInputStream())).startsWith("HTTP/1.1 200");
            }
            GatewayHarness.await("every answer in flight", () -> gateway.server.requestsInFlight() == clients);
            // Each relay reads megabytes past its client's buffers before its writes block: its copy buffer and the
            // full tail the usage parser reads at the end are then held, and both are counted (a tail is counted as
            // it grows, so the count is awaited until every relay has come that far).
            double least = clients * (16 * 1024 + BodyTail.CAPACITY);
            GatewayHarness.await(
                    "every relay's copy buffer and full tail counted",
                    () -> gateway.metric("grid_inflight_answer_bytes", "") >= least);
            double held = gateway.metric("grid_inflight_answer_bytes", "");
            assertThat(held)
                    .as("answer bytes counted for %d stalled answers", clients)
                    .isGreaterThanOrEqualTo(least)
                    .isLessThanOrEqualTo((double) clients * PER_ANSWER);
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
        GatewayHarness.await("the answers ended", () -> gateway.server.requestsInFlight() == 0);
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
    }

    @Test
    void answersHeldAtOnce_countedExactly_everyByteGivenBackHoweverEachEnds() throws Exception {
        // Eight tagged answers held at once (the idle timeout far off), each ending its own way while held: the engine
        // resets, the engine ends
        // the connection short of its Content-Length, the client goes away, the rest of the answer comes.
        String[] endings = {"reset", "short", "gone", "whole"};
        int answers = 2 * endings.length;
        int length = 60_000;
        String start = "{\"id\":\"resp_held\",\"object\":\"response\",\"output_text\":\"";
        String body = start + "h".repeat(length - start.length() - 2) + "\"}";
        CountDownLatch allHeld = new CountDownLatch(1);
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n"
                    + body.substring(0, 1000));
            allHeld.await(GatewayHarness.DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            if (e.head.contains("resp_reset")) {
                e.reset();
            } else if (e.head.contains("resp_short")) {
                e.write(body.substring(1000, 2000));
                e.finWithoutCloseNotify();
            } else if (e.head.contains("resp_gone")) {
                e.awaitPeerClose(GatewayHarness.DEADLINE.toMillis());
            } else {
                e.write(body.substring(1000));
            }
        };
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < answers; i++) {
                RawClient client = new RawClient(gateway.server.port());
                clients.add(client);
                String id = "resp_east." + DIGEST + ".." + endings[i % endings.length] + i;
                client.send("GET /v1/responses/" + id + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            }
            // Each holds its copy buffer (16 KiB) and room for the answer it announced (60,000 bytes), no more.
            double each = 16 * 1024 + length;
            GatewayHarness.await(
                    "every answer held", () -> gateway.metric("grid_inflight_answer_bytes", "") >= answers * each);
            assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isEqualTo(answers * each);

            for (int i = 0; i < answers; i++) {
                if (endings[i % endings.length].equals("gone")) {
                    clients.get(i).close();
                }
            }
            allHeld.countDown();
            for (int i = 0; i < answers; i++) {
                String ending = endings[i % endings.length];
                if (ending.equals("gone")) {
                    continue;
                }
                RawClient.Answer answer = clients.get(i).read();
                if (ending.equals("whole")) {
                    assertThat(answer.status()).isEqualTo(200);
                    assertThat(answer.body()).startsWith("{\"id\":\"resp_east." + DIGEST + "..held\"");
                } else {
                    assertThat(answer.status()).as(ending).isEqualTo(502);
                    assertThat(answer.body()).as(ending).contains("bad_gateway").doesNotContain("resp_");
                }
            }
        } finally {
            allHeld.countDown();
            for (RawClient client : clients) {
                client.close();
            }
        }
        GatewayHarness.await("every request ended", () -> gateway.server.requestsInFlight() == 0);
        assertThat(gateway.metric("grid_inflight_answer_bytes", ""))
                .as("answer bytes left counted")
                .isZero();
        assertThat(gateway.metric("grid_inflight_body_bytes", ""))
                .as("body bytes left counted")
                .isZero();
    }

    @Test
    void compressedAnswer_relayedAsItCame_keepsNoTailForTheUsageParser() throws Exception {
        // A client that asked for gzip gets the engine's compressed completion byte for byte; a compressed tail is no
        // text to read usage in, so none is kept: with all but the last byte at the client, the relay holds its copy
        // buffer only.
        byte[] compressed = new byte[256 * 1024];
        new SplittableRandom(7).nextBytes(compressed);
        String text = new String(compressed, StandardCharsets.ISO_8859_1);
        CountDownLatch lastByte = new CountDownLatch(1);
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: "
                    + compressed.length + "\r\n\r\n" + text.substring(0, text.length() - 1));
            lastByte.await(GatewayHarness.DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            e.write(text.substring(text.length() - 1));
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            String request = "{\"model\":\"demo-model\",\"prompt\":\"hi\"}";
            client.send("POST /v1/completions HTTP/1.1\r\nHost: gw\r\nAccept-Encoding: gzip\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + request.length() + "\r\n\r\n"
                    + request);
            assertThat(client.readHead()).startsWith("HTTP/1.1 200").containsIgnoringCase("content-encoding: gzip");
            InputStream in = client.socket.getInputStream();
            byte[] body = in.readNBytes(compressed.length - 1);

            assertThat(gateway.metric("grid_inflight_answer_bytes", ""))
                    .as("answer bytes counted with all but the last byte sent")
                    .isEqualTo(16 * 1024);
            lastByte.countDown();
            assertThat(in.read()).isEqualTo(compressed[compressed.length - 1] & 0xFF);
            assertThat(body).isEqualTo(java.util.Arrays.copyOf(compressed, compressed.length - 1));
        } finally {
            lastByte.countDown();
        }
        GatewayHarness.await("the answer ended", () -> gateway.server.requestsInFlight() == 0);
        assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
    }

    @Test
    void responsesStreamWithAHugeFirstEvent_idTaggedBeforeTheEventEnds() throws Exception {
        String created = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":"
                + storedResponse(4 << 20) + "}\n\n";
        int split = 256 * 1024;
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk(created.substring(0, split)));
            clientHasTheId.await(20, TimeUnit.SECONDS);
            e.write(UpstreamFaultsIntegrationTest.chunk(created.substring(split)) + "0\r\n\r\n");
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            assertThat(client.readHead()).startsWith("HTTP/1.1 200");
            client.socket.setSoTimeout(10_000);
            assertThat(readUntil(client, "\"id\":\"" + TAGGED_BIG + "\"")).isTrue();
            clientHasTheId.countDown();
            assertThat(readChunkedToTheEnd(client)).contains("resp_east." + DIGEST + "..prev");
        }
    }

    @Test
    void streamsInFlight_giveTheirRequestBodiesBack_soNewBodiesAreNotRefused() throws Exception {
        // A budget of 16 KiB: room for a 4000-byte body (the harness's max_body_bytes is 4096) beside two streams'
        // event buffers (4 KiB each), not beside two streams that still hold their bodies too.
        Path own = java.nio.file.Files.createDirectories(dir.resolve("budget"));
        CountDownLatch streamsMayEnd = new CountDownLatch(1);
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk("data: {\"n\":1}\n\n"));
            // Each stream stays open, its answer begun, until the test has asked for more than the budget.
            streamsMayEnd.await(20, TimeUnit.SECONDS);
            e.write(UpstreamFaultsIntegrationTest.chunk("data: [DONE]\n\n") + "0\r\n\r\n");
        };
        String body = "{\"model\":\"demo-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\""
                + "p".repeat(3900) + "\"}]}";
        List<RawClient> streams = new ArrayList<>();
        try (GatewayHarness budgeted = new GatewayHarness(
                own,
                GatewayHarness.config(
                        "  max_inflight_body_bytes: 16384", "", GatewayHarness.oneEngine(engine.url())))) {
            for (int i = 0; i < 3; i++) {
                RawClient client = new RawClient(budgeted.server.port());
                streams.add(client);
                client.post("/v1/chat/completions", body);
                // Its answer has begun: the engine will never be sent this body again.
                assertThat(client.readHead()).startsWith("HTTP/1.1 200");
                assertThat(client.readUntil("\n\n")).contains("\"n\":1");
            }
            GatewayHarness.await("three streams in flight", () -> budgeted.server.requestsInFlight() == 3);

            // Each body was given back when its answer began: the streams hold their answers' buffers only.
            assertThat(budgeted.metric("grid_inflight_body_bytes", "")).isZero();
            assertThat(budgeted.metric("grid_requests_refused_total", "reason=\"body_budget\""))
                    .isZero();
        } finally {
            streamsMayEnd.countDown();
            for (RawClient client : streams) {
                client.close();
            }
        }
    }

    /** What arrives in the next read (at most 8 KiB). */
    private static String readSome(InputStream in) throws IOException {
        byte[] buffer = new byte[8192];
        int n = in.read(buffer);
        return n < 0 ? "" : new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** Reads until {@code marker} has arrived; false if the stream ended first. */
    private static boolean readUntil(RawClient client, String marker) throws IOException {
        InputStream in = client.socket.getInputStream();
        byte[] want = marker.getBytes(StandardCharsets.ISO_8859_1);
        byte[] window = new byte[want.length];
        int b;
        while ((b = in.read()) >= 0) {
            System.arraycopy(window, 1, window, 0, window.length - 1);
            window[window.length - 1] = (byte) b;
            if (java.util.Arrays.equals(window, want)) {
                return true;
            }
        }
        return false;
    }

    /** The rest of a chunked answer, up to its terminating chunk, with the chunk framing taken out. */
    private static String readChunkedToTheEnd(RawClient client) throws IOException {
        InputStream in = client.socket.getInputStream();
        ByteArrayOutputStream rest = new ByteArrayOutputStream();
        byte[] end = "\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] buffer = new byte[64 * 1024];
        int n;
        byte[] last = new byte[end.length];
        while ((n = in.read(buffer)) >= 0) {
            rest.write(buffer, 0, n);
            for (int i = Math.max(0, n - end.length); i < n; i++) {
                System.arraycopy(last, 1, last, 0, last.length - 1);
                last[last.length - 1] = buffer[i];
            }
            if (java.util.Arrays.equals(last, end)) {
                break;
            }
        }
        String text = rest.toString(StandardCharsets.ISO_8859_1);
        assertThat(text).endsWith("\r\n0\r\n\r\n");
        // Drop the chunk framing: the size lines between the pieces (the body itself has no CRLF).
        String chunks = text.substring(0, text.length() - "\r\n0\r\n\r\n".length());
        return chunks.replaceAll("\r\n[0-9a-f]+\r\n", "");
    }
}
