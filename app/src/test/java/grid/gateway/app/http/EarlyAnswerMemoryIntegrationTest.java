package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An answer that comes before the engine read the whole request body: the body's writer stays blocked in a write of
 * its own 64 KiB slice until the connection closes, after that answer, so the slice outlives the body (given back
 * when the answer began). It is counted in {@code grid_inflight_answer_bytes} meanwhile, and given back with the
 * request. Real sockets: an engine with a small fixed receive buffer that reads the first half of the body and answers
 * once the writer is blocked. Half the body is more than what the kernel can take at once on the gateway's side (its
 * send buffer, at most {@code net.ipv4.tcp_wmem}'s 4 MiB, and the engine's receive window), so the writer's thread is
 * writing by then; the half left is more than both buffers too, so it ends up blocked in a slice for as long as the
 * engine reads nothing, and the engine answers only once the kernel says so ({@link BlockedWrite}). An answer that
 * came while the writer still had buffer to fill (or before its thread ran) would find nothing to count: the writer,
 * stopped, ends after the slice it is writing.
 */
class EarlyAnswerMemoryIntegrationTest extends BehindAFreshGateway {
    /** The relay's copy buffer of a chunked answer that is no event stream. */
    private static final double COPY_BUFFER = 16 * 1024;
    /** The slice a body writer copies the body into ({@code BodyWriter.SLICE}). */
    private static final double SLICE = 64 * 1024;
    /** The body's bytes: twice 12 MiB, each half well over the 4 MiB of a send buffer and the engine's window. */
    private static final int BODY = 24 << 20;

    @Override
    String config(String oneEngine) {
        return oneEngine.replace("max_body_bytes: 4096", "max_body_bytes: " + (32 << 20));
    }

    @Test
    void answerBeforeTheBodyIsWritten_writersSliceCountedWhileTheAnswerIsRelayed_givenBackAtTheEnd() throws Exception {
        engine.receiveBuffer(64 * 1024); // the connection is accepted when the request comes, after this
        engine.readsBody = false;
        CountDownLatch rest = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        engine.script = e -> {
            e.in.readNBytes(BODY / 2); // what the body's writer thread has written, at the least: it is running
            BlockedWrite.await(e.tcp); // and blocked in a slice, the engine's window shut: it ends with the connection
            e.write("HTTP/1.1 413 Early\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + UpstreamFaultsIntegrationTest.chunk("{\"error\":"));
            rest.await(30, TimeUnit.SECONDS);
            e.write(UpstreamFaultsIntegrationTest.chunk("{\"code\":413}}") + "0\r\n\r\n");
            done.await(30, TimeUnit.SECONDS); // reads nothing more until the test is done: the writer stays blocked
        };
        String big = UpstreamFaultsIntegrationTest.CHAT.replace("hello", "h".repeat(BODY));
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", big);
            assertThat(client.readHead()).startsWith("HTTP/1.1 413");
            // The answer is being relayed (its head went out with its first chunk); the body's write is blocked.
            GatewayHarness.await(
                    "the relay's buffer counted",
                    () -> gateway.metric("grid_inflight_answer_bytes", "") >= COPY_BUFFER);
            assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isEqualTo(COPY_BUFFER + SLICE);
            assertThat(gateway.metric("grid_inflight_body_bytes", "")).isZero();
            rest.countDown();
            assertThat(client.readUntil("\r\n0\r\n\r\n")).contains("{\"code\":413}}");
            GatewayHarness.await("the request ended", () -> gateway.server.requestsInFlight() == 0);
            assertThat(gateway.metric("grid_inflight_answer_bytes", "")).isZero();
            // Part of a request is in that connection: closed after the answer, which ends the blocked write.
            assertThat(engine.take().awaitPeerClose(10_000)).isTrue();
        } finally {
            rest.countDown();
            done.countDown();
        }
    }
}
