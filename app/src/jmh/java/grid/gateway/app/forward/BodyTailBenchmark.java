package grid.gateway.app.forward;

import java.nio.charset.StandardCharsets;
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
 * An event stream's tail as the relay keeps it for every streamed answer: one read's bytes appended per call. A read
 * holds {@code events} Chat Completions chunks of about 160 bytes (one for a stream paced by its engine's decode, as
 * a long stream is read; 50 for a fast stream read by a client that keeps up in 8 KiB reads).
 *
 * <p>Run: {@code bin/bench BodyTailBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BodyTailBenchmark {
    /** Events in one read. */
    @Param({"1", "50"})
    public int events;

    private byte[] read;
    private BodyTail tail;

    @Setup
    public void setUp() {
        String event = "data: {\"id\":\"chatcmpl-6f1c\",\"object\":\"chat.completion.chunk\",\"created\":1764900000,"
                + "\"model\":\"bench-stream\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" tok\"}}]}\n\n";
        read = event.repeat(events).getBytes(StandardCharsets.US_ASCII);
        tail = BodyTail.ofEvents();
    }

    @Benchmark
    public BodyTail appendOneRead() {
        tail.append(read, 0, read.length);
        return tail;
    }
}
