package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slow reader of a fast stream, on real sockets: the client takes its answer a little at a time while the engine
 * could write hundreds of MiB a second. The gateway must read the engine only as fast as the client takes what it
 * writes (TCP backpressure end to end), so what the engine has written stays ahead of what the client has read by no
 * more than the sockets' buffers of both hops plus the answer's own counted buffers, however long the stream, and the
 * answer bytes the gateway counts stay under a small fixed bound.
 *
 * <p>A gateway that read the engine ahead of its client would let the engine race on (loopback writes at GiB a
 * second): the gap would pass the bound within the first pauses of the reader. The bound is generous on purpose: the
 * kernel may grow a loopback socket's buffers to {@code tcp_rmem}'s maximum (32 MiB on common distributions), and
 * the assertion must hold on any machine; an unbounded buffer is orders of magnitude past it.
 */
class SlowReaderIntegrationTest {
    /**
     * The idle timeout of the pausing reader's gateway: short, so that its pauses are short, and long enough that a
     * loaded machine's stall between two of the engine's writes never reads as the engine's silence.
     */
    private static final long PAUSING_IDLE_MS = 500;

    /** Kernel buffers of both hops at their largest (send 4 MiB + receive 32 MiB each), and room. */
    private static final long MAX_AHEAD = 96L << 20;
    /** What the gateway may count for one relayed stream: its copy buffer and an event, not the stream. */
    private static final double MAX_COUNTED = 256 * 1024;

    private static final byte[] EVENT =
            ("data: {\"text\":\"" + "y".repeat(16 * 1024) + "\"}\n\n").getBytes(StandardCharsets.ISO_8859_1);
    /** Much longer than the bound: a gateway that buffers would let the engine write far past it. */
    private static final long STREAM_BYTES = 1L << 30;

    @TempDir
    Path dir;

    private GatewayHarness gateway;
    private final AtomicLong written = new AtomicLong();

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    /**
     * A reader that pauses for three idle timeouts at a time: the gateway, blocked on it, reads nothing from the engine
     * meanwhile, and that silence is its own, not the engine's, so the idle timeout never ends the stream.
     */
    @Test
    void readerPausingLongerThanTheIdleTimeout_engineSilenceIsTheGatewaysOwn_streamGoesOn() throws Exception {
        try (Socket client = new Socket()) {
            InputStream in = endlessStreamTo(client, "  upstream:\n    idle_timeout_ms: " + PAUSING_IDLE_MS + "\n");
            byte[] buffer = new byte[64 * 1024];
            for (int pause = 0; pause < 3; pause++) {
                // Nothing taken for three idle timeouts: the sockets fill, the gateway's write blocks, its reads of
                // the engine stop.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3 * PAUSING_IDLE_MS));
                for (long taken = 0; taken < (1 << 20); ) {
                    int n = in.read(buffer);
                    assertThat(n).as("the stream goes on after pause %d", pause).isPositive();
                    taken += n;
                }
            }
        }
        assertThat(gateway.metric("grid_upstream_errors_total", "kind=\"timeout\""))
                .isZero();
    }

    /**
     * A gateway ({@code gatewayExtra} added to its {@code gateway} block) in front of an engine that streams without
     * end ({@link #endlessStream()}), and {@code client}'s streamed chat request sent through it; its answer's body.
     */
    private InputStream endlessStreamTo(Socket client, String gatewayExtra) throws IOException {
        ScriptedUpstream engine = new ScriptedUpstream();
        engine.script = endlessStream();
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(gatewayExtra, GatewayHarness.oneEngine(engine.url())),
                java.util.Optional.empty(),
                engine);
        return RawHttp.postChat(
                client,
                gateway.server.port(),
                4096,
                (int) GatewayHarness.DEADLINE.toMillis(),
                UpstreamFaultsIntegrationTest.STREAM);
    }

    /** An engine that streams 16 KiB events until the stream is long or the gateway closes it, counting them. */
    private ScriptedUpstream.Script endlessStream() {
        return e -> {
            e.write(ScriptedUpstream.SSE_HEAD);
            String event = UpstreamFaultsIntegrationTest.chunk(new String(EVENT, StandardCharsets.ISO_8859_1));
            try {
                while (written.get() < STREAM_BYTES) {
                    e.write(event);
                    written.addAndGet(EVENT.length);
                }
            } catch (IOException closed) {
                // The test is over and the gateway closed the stream.
            }
        };
    }

    @Test
    void slowReaderOfAFastStream_engineHeldBackByTheReader_answerMemoryBounded() throws Exception {
        try (Socket client = new Socket()) {
            InputStream in = endlessStreamTo(client, "");
            long read = 0;
            long widest = 0;
            double counted = 0;
            byte[] sip = new byte[4096];
            // The reader: 4 KiB, then a pause of 2 ms, 1,000 times (about 2 MiB a second for two seconds).
            for (int i = 0; i < 1_000; i++) {
                int n = in.read(sip);
                assertThat(n).as("the stream goes on").isPositive();
                read += n;
                widest = Math.max(widest, written.get() - read);
                assertThat(written.get() - read)
                        .as("engine bytes ahead of the reader after %d read", read)
                        .isLessThanOrEqualTo(MAX_AHEAD);
                if (i % 100 == 0) {
                    counted = Math.max(counted, gateway.metric("grid_inflight_answer_bytes", ""));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            assertThat(counted).as("answer bytes the gateway counts").isLessThanOrEqualTo(MAX_COUNTED);
            assertThat(written.get())
                    .as("the engine was held back (widest gap %d bytes)", widest)
                    .isLessThan(STREAM_BYTES);
        }
    }
}
