package grid.gateway.app.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A request body read as {@link BoundedBody} reads every body: from a stream that hands out at most 8 KiB a read
 * (what Helidon's socket reads give), {@code declared} with its {@code Content-Length} or {@code chunked}, reserved
 * in an unlimited budget. Run with {@code -prof gc}: the bytes allocated per read should be the body's length and
 * a few dozen bytes (the first 16 KiB of a longer body go through a pooled buffer, {@link ScratchBuffers}).
 *
 * <p>Run: {@code bin/bench BodyReadBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BodyReadBenchmark {
    /** The body's length in bytes. */
    @Param({"1024", "32768", "262144"})
    public int length;

    /** {@code declared} (Content-Length) or {@code chunked}. */
    @Param({"declared", "chunked"})
    public String framing;

    private byte[] body;
    private final BodyBudget budget = new BodyBudget(() -> Long.MAX_VALUE);
    private final Socketlike in = new Socketlike();

    @Setup
    public void setUp() {
        body = new byte[length];
        for (int i = 0; i < length; i++) {
            body[i] = (byte) ('a' + i % 26);
        }
    }

    @Benchmark
    public Object read() throws IOException {
        in.reset(body);
        try (BodyBudget.Hold hold = budget.hold()) {
            return BoundedBody.read(in, "chunked".equals(framing) ? -1 : length, 1L << 30, hold);
        }
    }

    /** Hands out a body at most 8 KiB a read, reused between reads so the stream itself allocates nothing. */
    private static final class Socketlike extends InputStream {
        private static final int READ = 8 * 1024;
        private byte[] bytes = new byte[0];
        private int at;

        void reset(byte[] body) {
            bytes = body;
            at = 0;
        }

        @Override
        public int read() {
            return at < bytes.length ? bytes[at++] & 0xff : -1;
        }

        @Override
        public int read(byte[] buffer, int offset, int len) {
            if (at == bytes.length) {
                return -1;
            }
            int n = Math.min(Math.min(len, READ), bytes.length - at);
            System.arraycopy(bytes, at, buffer, offset, n);
            at += n;
            return n;
        }
    }
}
