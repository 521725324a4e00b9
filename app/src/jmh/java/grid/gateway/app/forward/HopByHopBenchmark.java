package grid.gateway.app.forward;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.WritableHeaders;
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
 * Hop-by-hop filtering as the relay does it for every answer (and the forwarder for every request): the names of
 * one message's headers, then one {@code drops} per header. The message is the side-by-side upstream's answer head
 * (nginx: Server, Date, Content-Type, Content-Length, Connection), with {@code connection} {@code keep-alive} (nearly
 * every message), {@code none} (no Connection header) or {@code extra} (Connection naming a further header). Run
 * with {@code -prof gc} for the bytes allocated per message.
 *
 * <p>Run: {@code bin/bench HopByHopBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HopByHopBenchmark {
    /** The Connection header: {@code keep-alive}, {@code none} or {@code extra}. */
    @Param({"keep-alive", "none", "extra"})
    public String connection;

    private WritableHeaders<?> headers;

    @Setup
    public void setUp() {
        headers = WritableHeaders.create();
        headers.set(HeaderNames.SERVER, "nginx/1.24.0");
        headers.set(HeaderNames.DATE, "Wed, 02 Dec 2026 01:00:00 GMT");
        headers.set(HeaderNames.CONTENT_TYPE, "application/json");
        headers.set(HeaderNames.CONTENT_LENGTH, "360");
        switch (connection) {
            case "keep-alive" -> headers.set(HeaderNames.CONNECTION, "keep-alive");
            case "extra" -> {
                headers.set(HeaderNames.CONNECTION, "keep-alive, X-Hop");
                headers.set(HeaderNames.create("X-Hop"), "1");
            }
            default -> {}
        }
    }

    @Benchmark
    public int filter() {
        HopByHopHeaders hopByHop = HopByHopHeaders.of(headers);
        int kept = 0;
        for (Header header : headers) {
            if (!hopByHop.drops(header)) {
                kept++;
            }
        }
        return kept;
    }
}
