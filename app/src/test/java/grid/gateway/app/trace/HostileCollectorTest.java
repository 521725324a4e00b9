package grid.gateway.app.trace;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.TracingSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The exporter against collectors that misbehave on real sockets, with short export deadlines: every export ends by
 * its deadline whatever the collector does (its connection closed by the gateway, not left to the collector), a
 * stalled collector never stops later exports once it answers again, and closing is bounded.
 */
class HostileCollectorTest {
    /**
     * An export's deadline here. It counts from the export's start, so a cold JVM's first connect (the HTTP client's
     * classes loaded on a loaded machine) must fit in it, or the export ends before any connection and the collector
     * has nothing to see closed; every misbehaviour below lasts for ever, so a longer deadline proves no less.
     */
    private static final Duration DEADLINE = Duration.ofSeconds(3);

    private static final Duration BOUND = Duration.ofSeconds(20);

    private HostileCollector collector;
    private Tracing tracing;

    private Tracing exportingTo(String url, Duration deadline) {
        tracing = Tracing.start(
                new TracingSettings(Optional.of(URI.create(url)), "hostile", 1.0),
                new SplittableRandom(7),
                deadline,
                Duration.ofSeconds(2));
        return tracing;
    }

    private void span() {
        tracing.tracer().orElseThrow().spanBuilder("GET /x").startSpan().end();
    }

    @AfterEach
    void stop() throws InterruptedException {
        try {
            if (tracing != null) {
                closeWithin(BOUND);
            }
        } finally {
            if (collector != null) {
                collector.close();
            }
        }
    }

    /** Closes the tracing on another thread, failing the test if that takes longer than {@code bound}. */
    private void closeWithin(Duration bound) throws InterruptedException {
        Tracing closing = tracing;
        tracing = null;
        Thread closer = Thread.ofVirtual().start(closing::close);
        assertThat(closer.join(bound)).as("closed within " + bound).isTrue();
    }

    /** Reads the export, answers a head whose body never comes whole: {@code body} writes what does come. */
    private static HostileCollector.Script headThen(String length, BodyWriter body) {
        return (socket, in, out) -> {
            HostileCollector.request(in);
            out.write(HostileCollector.head(200, "Content-Type: application/x-protobuf", length)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            body.write(out);
        };
    }

    @FunctionalInterface
    private interface BodyWriter {
        void write(OutputStream out) throws IOException;
    }

    @Test
    void answerBodyNeverComes_exportEndsAtItsDeadline_connectionClosed() throws InterruptedException {
        collector = new HostileCollector(headThen("Content-Length: 100", out -> {}));
        exportingTo(collector.url(), DEADLINE);
        span();

        collector.awaitClosed(1, BOUND);
    }

    @Test
    void answerBodyTrickles_exportEndsAtItsDeadline_connectionClosed() throws InterruptedException {
        collector = new HostileCollector(headThen("Content-Length: 100000000", out -> {
            while (true) {
                out.write('x');
                out.flush();
                // The collector's pace: one byte every 100 ms, for ever.
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }));
        exportingTo(collector.url(), DEADLINE);
        span();

        collector.awaitClosed(1, BOUND);
    }

    @Test
    void answerBodyEndless_closedAtTheAnswerLimit() throws InterruptedException {
        AtomicInteger written = new AtomicInteger();
        collector = new HostileCollector(headThen("Transfer-Encoding: chunked", out -> {
            byte[] chunk = ("4000\r\n" + "x".repeat(0x4000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            while (true) {
                out.write(chunk);
                written.addAndGet(0x4000);
            }
        }));
        exportingTo(collector.url(), Duration.ofSeconds(60));
        span();

        collector.awaitClosed(1, BOUND);
        // Closed for its length, not its time: the socket buffers hold a few megabytes at most.
        assertThat(written.get()).isLessThan(64 * 1024 * 1024);
    }

    @Test
    void moreStalledExportsThanTheSenderHasThreads_thenTheCollectorAnswers_spansArrive() throws Exception {
        collector = new HostileCollector(headThen("Content-Length: 100", out -> {}));
        exportingTo(collector.url(), DEADLINE);
        int stalled = Math.max(Runtime.getRuntime().availableProcessors(), 5) + 2;
        for (int i = 1; i <= stalled; i++) {
            span();
            collector.awaitAccepted(i, BOUND);
        }
        collector.play((socket, in, out) -> {
            while (collector.counted(in)) {
                out.write(HostileCollector.head(200, "Content-Length: 0").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        });
        span();

        collector.awaitCounted(1, BOUND);
        collector.awaitClosed(stalled, BOUND);
    }

    @Test
    void stalledCollector_spansPastAFullQueue_droppedAndCountedExactly() throws InterruptedException {
        collector = new HostileCollector(headThen("Content-Length: 100", out -> {}));
        exportingTo(collector.url(), Duration.ofSeconds(60));
        span();
        // The processor took the one span off its queue and waits on the stalled export: the queue is empty.
        collector.awaitAccepted(1, BOUND);
        for (int i = 0; i < Tracing.QUEUE; i++) {
            span();
        }
        assertThat(tracing.droppedSpans())
                .as("a full queue, nothing dropped yet")
                .isZero();

        int past = 37;
        for (int i = 0; i < past; i++) {
            span();
        }

        assertThat(tracing.droppedSpans()).isEqualTo(past);
    }

    @Test
    void noEndpoint_nothingDropped() {
        tracing = Tracing.start(
                new TracingSettings(Optional.empty(), "hostile", 1.0),
                new SplittableRandom(7),
                DEADLINE,
                Duration.ofSeconds(2));

        assertThat(tracing.droppedSpans()).isZero();
    }

    @Test
    void tlsHandshakeNeverCompletes_exportEndsAtItsDeadline_connectionClosed() throws InterruptedException {
        collector = new HostileCollector((socket, in, out) -> {
            // Takes the ClientHello and answers nothing.
            in.readNBytes(5);
        });
        exportingTo("https://127.0.0.1:" + collector.port(), DEADLINE);
        span();

        collector.awaitClosed(1, BOUND);
    }

    @Test
    void stalledCollector_closeBounded() throws InterruptedException {
        collector = new HostileCollector(headThen("Content-Length: 100", out -> {}));
        exportingTo(collector.url(), Duration.ofSeconds(60));
        span();
        collector.awaitAccepted(1, BOUND);

        // The close bound is 2 s; a close that waits on the stalled export never ends.
        closeWithin(Duration.ofSeconds(5));
        // Shutting the exporter down aborts the stalled export: the collector sees its connection closed.
        collector.awaitClosed(1, BOUND);
    }

    @Test
    void resetMidRequest_triedAgainOnAFreshConnection_within_theDeadline() throws InterruptedException {
        AtomicInteger connections = new AtomicInteger();
        collector = new HostileCollector((socket, in, out) -> {
            if (connections.incrementAndGet() == 1) {
                // The first connection is reset in the middle of the export's request.
                in.readNBytes(10);
                socket.setSoLinger(true, 0);
                socket.close();
                return;
            }
            while (collector.counted(in)) {
                out.write(HostileCollector.head(200, "Content-Length: 0").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        });
        exportingTo(collector.url(), Duration.ofSeconds(8));
        span();

        collector.awaitCounted(1, BOUND);
        assertThat(connections.get()).isEqualTo(2);
    }

    @Test
    void tooManyRequests_aRetryAfterPastTheDeadline_notWaitedFor_theNextExportSent() throws InterruptedException {
        collector = new HostileCollector((socket, in, out) -> {
            while (collector.counted(in)) {
                out.write(HostileCollector.head(429, "Retry-After: 3600", "Content-Length: 0")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        });
        exportingTo(collector.url(), Duration.ofSeconds(5));
        span();
        collector.awaitCounted(1, BOUND);
        span();

        collector.awaitCounted(2, BOUND);
    }
}
