package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A client that reads a long answer slowly, pausing for several of the gateway's upstream silences at a time, on every
 * way an answer is relayed that {@link SlowReaderIntegrationTest} (a chat event stream) does not walk: a non-streamed
 * JSON answer of the untagged path, framed by its length, in chunks or by the engine's close, a tagged JSON answer
 * longer than is held whole (a Responses object, a stored object's input items), and a tagged event stream. While the
 * client pauses, the gateway's write to it blocks, it reads nothing from the engine, and the engine, its writes held
 * back by the full sockets, is silent for longer than {@code idle_timeout_ms} and {@code first_byte_timeout_ms}: that
 * silence is the gateway's own, so neither timer cuts the answer, and the client gets all of it, its framing whole.
 */
class SlowReaderPathsIntegrationTest {
    /** The upstream timers, short. */
    private static final String TIMERS = "  upstream:\n    idle_timeout_ms: 700\n    first_byte_timeout_ms: 600\n";

    /**
     * Each pause of the reader: three of the shorter timer. The timers are long enough that a loaded machine's stall
     * between two of the engine's writes never reads as the engine's silence.
     */
    private static final long PAUSE_MS = 1800;
    /**
     * Far longer than what the sockets of both hops can hold (send 4 MiB and receive 32 MiB each at most), so that the
     * engine is still writing when the reader's pauses end: held back, not done.
     */
    private static final long BODY_BYTES = 112L << 20;

    private static final int PIECE = 64 * 1024;
    private static final String ID = "resp_slow1";

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

    /** What the engine writes: the body's start, its filler piece (repeated), and its end. */
    private record Body(String start, String piece, String end, long length) {
        static Body of(String kind) {
            if (kind.equals("json")) {
                String start = "{\"id\":\"" + ID + "\",\"object\":\"response\",\"pad\":\"";
                String end = "\",\"end\":\"END\"}";
                return new Body(start, "p".repeat(PIECE), end, start.length() + BODY_BYTES + end.length());
            }
            String start = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"" + ID
                    + "\"}}\n\n";
            String piece = "data: {\"delta\":\"" + "y".repeat(PIECE - 20) + "\"}\n\n";
            String end = "data: [DONE]\n\n";
            return new Body(
                    start, piece, end, start.length() + BODY_BYTES / piece.length() * piece.length() + end.length());
        }

        long pieces() {
            return (length - start.length() - end.length()) / piece.length();
        }
    }

    private ScriptedUpstream.Script engineWriting(Body body, String type, String framing) {
        return e -> {
            String head = "HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\n";
            boolean chunked = framing.equals("chunked");
            e.write(head
                    + switch (framing) {
                        case "length" -> "Content-Length: " + body.length() + "\r\n";
                        case "chunked" -> "Transfer-Encoding: chunked\r\n";
                        default -> "";
                    }
                    + "\r\n");
            write(e, body.start(), chunked);
            for (long i = 0; i < body.pieces(); i++) {
                write(e, body.piece(), chunked);
            }
            write(e, body.end(), chunked);
            if (chunked) {
                e.write("0\r\n\r\n");
            } else if (framing.equals("close")) {
                e.socket.shutdownOutput();
            }
        };
    }

    private void write(ScriptedUpstream.Exchange e, String text, boolean chunked) throws IOException {
        e.write(chunked ? Integer.toHexString(text.length()) + "\r\n" + text + "\r\n" : text);
        written.addAndGet(text.length());
    }

    @ParameterizedTest
    @CsvSource({
        "POST, /v1/chat/completions, json, length",
        "POST, /v1/chat/completions, json, chunked",
        "POST, /v1/chat/completions, json, close",
        "POST, /v1/responses, json, length",
        "POST, /v1/responses, json, close",
        "POST, /v1/responses, sse, chunked",
        "GET, /v1/responses/{id}/input_items, json, chunked"
    })
    void readerPausingLongerThanTheUpstreamTimers_answerGoesOnWhole_noTimeout(
            String method, String path, String kind, String framing) throws Exception {
        Body body = Body.of(kind);
        ScriptedUpstream engine = new ScriptedUpstream();
        engine.script = engineWriting(body, kind.equals("json") ? "application/json" : "text/event-stream", framing);
        gateway =
                new GatewayHarness(dir, GatewayHarness.config(TIMERS, GatewayHarness.oneEngine(engine.url())), engine);
        boolean tagged = path.startsWith("/v1/responses");
        try (Socket client = new Socket()) {
            client.setReceiveBufferSize(16 * 1024);
            client.connect(new InetSocketAddress("127.0.0.1", gateway.server.port()));
            client.setSoTimeout((int) GatewayHarness.DEADLINE.toMillis());
            client.getOutputStream().write(request(method, path).getBytes(StandardCharsets.ISO_8859_1));
            InputStream raw = client.getInputStream();
            // A byte after each pause: the gateway's write to the client blocks for all of it but that byte.
            ByteArrayOutputStream early = new ByteArrayOutputStream();
            for (int pause = 0; pause < 3; pause++) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PAUSE_MS));
                int b = raw.read();
                assertThat(b).as("the answer goes on after pause %d", pause).isNotNegative();
                early.write(b);
            }
            assertThat(written.get())
                    .as("engine bytes written when the pauses ended")
                    .isLessThan(body.length());

            Relayed got = Relayed.read(new BufferedInputStream(
                    new SequenceInputStream(new ByteArrayInputStream(early.toByteArray()), raw), 64 * 1024));

            assertThat(got.status()).isEqualTo(200);
            assertThat(got.complete())
                    .as("the answer's framing ended whole; %s", upstreamErrors())
                    .isTrue();
            String start = tagged ? ApiPath.untagged(got.start()) : got.start();
            assertThat(start).startsWith(body.start());
            assertThat(got.end()).endsWith(body.end());
            long tag = tagged ? got.start().length() - start.length() : 0;
            assertThat(got.length() - tag).isEqualTo(body.length());
        }
        assertThat(gateway.metric("grid_upstream_errors_total", "kind=\"timeout\""))
                .isZero();
    }

    /** The upstream errors counted so far, for a failure's message. */
    private List<String> upstreamErrors() {
        return gateway.metrics()
                .lines()
                .filter(l -> l.startsWith("grid_upstream_errors_total{") && !l.endsWith(" 0.0"))
                .toList();
    }

    private static String request(String method, String path) {
        String target = path.replace("{id}", "resp" + ApiPath.TAG + "slow1");
        if (method.equals("GET")) {
            return "GET " + target + " HTTP/1.1\r\nHost: gw\r\n\r\n";
        }
        String json = path.equals("/v1/responses")
                ? "{\"model\":\"demo-model\",\"input\":\"hi\"}"
                : UpstreamAnswersIntegrationTest.chat("slow");
        return "POST " + target + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: "
                + json.length() + "\r\n\r\n" + json;
    }

    /** An answer read as a client reads it: its status, its body's start, end and length, whether it ended whole. */
    private record Relayed(int status, String start, String end, long length, boolean complete) {
        private static final int KEPT = 256;

        static Relayed read(InputStream in) throws IOException {
            String head = line(in);
            int status = Integer.parseInt(head.substring(9, 12));
            long contentLength = -1;
            boolean chunked = false;
            for (String field = line(in); !field.isEmpty(); field = line(in)) {
                String lower = field.toLowerCase(Locale.ROOT);
                chunked |= lower.equals("transfer-encoding: chunked");
                if (lower.startsWith("content-length:")) {
                    contentLength = Long.parseLong(lower.substring(15).strip());
                }
            }
            Sink sink = new Sink();
            boolean complete;
            if (chunked) {
                complete = chunks(in, sink);
            } else {
                complete = sink.take(in, contentLength) == contentLength;
            }
            return new Relayed(
                    status, sink.start.toString(StandardCharsets.ISO_8859_1), sink.end(), sink.length, complete);
        }

        private static boolean chunks(InputStream in, Sink sink) throws IOException {
            while (true) {
                String size = line(in);
                if (size == null) {
                    return false;
                }
                long n = Long.parseLong(size.split(";")[0].strip(), 16);
                if (n == 0) {
                    return "".equals(line(in));
                }
                if (sink.take(in, n) < n || !"".equals(line(in))) {
                    return false;
                }
            }
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0; c = in.read()) {
                if (c == '\n') {
                    return line.toString().strip();
                }
                line.append((char) c);
            }
            return null;
        }
    }

    /** Keeps a body's first and last bytes and counts the rest. */
    private static final class Sink {
        final ByteArrayOutputStream start = new ByteArrayOutputStream();
        final byte[] last = new byte[Relayed.KEPT];
        long length;

        long take(InputStream in, long n) throws IOException {
            byte[] buffer = new byte[64 * 1024];
            long taken = 0;
            while (taken < n) {
                int r = in.read(buffer, 0, (int) Math.min(buffer.length, n - taken));
                if (r < 0) {
                    break;
                }
                for (int i = 0; i < r; i++, length++) {
                    if (length < Relayed.KEPT) {
                        start.write(buffer[i]);
                    }
                    last[(int) (length % Relayed.KEPT)] = buffer[i];
                }
                taken += r;
            }
            return taken;
        }

        String end() {
            int kept = (int) Math.min(length, Relayed.KEPT);
            byte[] out = new byte[kept];
            for (int i = 0; i < kept; i++) {
                out[i] = last[(int) ((length - kept + i) % Relayed.KEPT)];
            }
            return new String(out, StandardCharsets.ISO_8859_1);
        }
    }
}
