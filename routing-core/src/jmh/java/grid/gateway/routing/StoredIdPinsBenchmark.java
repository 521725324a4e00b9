package grid.gateway.routing;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagKeyRing;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
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
 * Whether the time to refuse a stored-id tag tells a forged mac apart from a valid mac for a cluster that left the
 * grid (docs/reliability-checklist.md D 51): both answer the same 404, and the mac is checked first, so both cost one HMAC per key
 * plus a constant-time compare; the left-grid tag adds one map lookup that fails.
 *
 * <p>Run: {@code mvn -Pbench -pl routing-core package && java -jar routing-core/target/benchmarks.jar
 * StoredIdPinsBenchmark}. Compare {@code badMac} with {@code leftGrid} (and {@code badMacLastDigit}, a mac wrong
 * only in its last hex digit) within one run, for one and for three keys.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StoredIdPinsBenchmark {
    @Param({"1", "3"})
    int keys;

    private Grid grid;
    private TagKeyRing ring;
    private final TagCodec codec = new TagCodec();
    private List<NamedId> badMac;
    private List<NamedId> badMacLastDigit;
    private List<NamedId> leftGrid;

    @Setup
    public void setUp() {
        String keyFile = String.join(
                "\n",
                List.of(
                                "benchmark-key-number-one-0123456",
                                "benchmark-key-number-two-0123456",
                                "benchmark-key-number-three-01234")
                        .subList(0, keys));
        ring = TagKeyRing.parse(keyFile);
        grid = Grid.of(
                new SiteName("east"),
                List.of(new BackendCluster(
                        new ClusterId(new SiteName("east"), "east-a"),
                        URI.create("http://127.0.0.1:1"),
                        Set.of("demo-model"),
                        Optional.empty(),
                        OptionalInt.empty(),
                        false)));
        String digest = ClusterDigest.of("east-a");
        String goodMac = ring.sign("east", digest);
        String wrongLast = goodMac.substring(0, 15) + (goodMac.charAt(15) == '0' ? '1' : '0');
        badMac = List.of(response("resp_east." + digest + ".0123456789abcdef.abc"));
        badMacLastDigit = List.of(response("resp_east." + digest + "." + wrongLast + ".abc"));
        String goneDigest = ClusterDigest.of("east-gone");
        leftGrid = List.of(response("resp_east." + goneDigest + "." + ring.sign("east", goneDigest) + ".abc"));
    }

    @Benchmark
    public PinResult badMac() {
        return StoredIdPins.resolve(badMac, grid, ring, codec);
    }

    @Benchmark
    public PinResult badMacLastDigit() {
        return StoredIdPins.resolve(badMacLastDigit, grid, ring, codec);
    }

    @Benchmark
    public PinResult leftGrid() {
        return StoredIdPins.resolve(leftGrid, grid, ring, codec);
    }

    /** A response id where a response id is expected: a {@code previous_response_id}. */
    private static NamedId response(String id) {
        return new NamedId(IdKind.RESP, id);
    }
}
