package grid.gateway.app.access;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.select.AffinityOutcome;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the access log costs per request, on the request's thread:
 *
 * <ul>
 *   <li>{@code line}: a routed, answered request's record (every field set) formatted as its JSON line.
 *   <li>{@code lineWritten}: that, then written through the sink into a buffered stream that discards (the write
 *       and flush under the sink's lock, without the system call stdout adds).
 *   <li>{@code requestId}: a new random request id (a request without a well-formed one of its own).
 * </ul>
 *
 * <p>Run: {@code bin/bench AccessLogBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AccessLogBenchmark {
    private final AccessLine line = new AccessLine();
    private final AccessSink sink = AccessSink.to(new BufferedOutputStream(OutputStream.nullOutputStream(), 8192));
    private final Supplier<String> ids = RequestIds.randomUuids();
    private AccessRecord record;
    private AccessLine.Finish finish;

    @Setup
    public void setUp() {
        record = new AccessRecord("3f2b9c1e-8d4a-4f6b-9a0e-1c2d3e4f5a6b", "POST", 0)
                .logged(Instant.parse("2026-01-02T03:04:05.678Z"), "10.1.2.3");
        record.path = "/v1/chat/completions";
        record.cluster = new ClusterId(new SiteName("east"), "east-a");
        record.affinity = AffinityOutcome.HIT;
        record.runBlocks = 12;
        record.candidates = 3;
        record.reportedCachedTokens = 768;
        record.upstreamStatus = 200;
        record.upstreamHeadersNanos = 12_345_678;
        record.bytesIn = 2_048;
        finish = new AccessLine.Finish(200, 5_321, 1_234_567_890, Ending.ANSWERED);
    }

    @Benchmark
    public String line() {
        return line.format(record, finish);
    }

    @Benchmark
    public void lineWritten() {
        line.write(record, finish, sink);
    }

    @Benchmark
    public String requestId() {
        return ids.get();
    }
}
