package grid.gateway.app.observe;

import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
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
 * Reading the usage of every 2xx answer on the hot path: {@link CachedTokens#inJson} on the side-by-side
 * benchmark's fixed Chat Completions answer (360 bytes, usage at its end) and on a 16 KiB answer. Run with
 * {@code -prof gc} for the bytes allocated per call: parsing through an {@code InputStreamReader} cost an 8 KiB
 * decoder buffer per answer; a {@code String} of the answer costs about its length.
 *
 * <p>Run: {@code bin/bench CachedTokensBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CachedTokensBenchmark {
    private static final String SHORT =
            "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"created\":1764460800,"
                    + "\"model\":\"bench-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                    + "\"content\":\"Hello from the fixed upstream.\",\"refusal\":null},\"logprobs\":null,"
                    + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":256,\"completion_tokens\":8,"
                    + "\"total_tokens\":264,\"prompt_tokens_details\":{\"cached_tokens\":128}}}";

    /** The answer: {@code short} (360 bytes) or {@code long} (an answer text of about 16 KiB). */
    @Param({"short", "long"})
    public String answer;

    private byte[] body;

    @Setup
    public void setUp() {
        String json = answer.equals("short")
                ? SHORT
                : SHORT.replace("Hello from the fixed upstream.", "word ".repeat(16 * 1024 / 5));
        body = json.getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public OptionalLong inJson() {
        return CachedTokens.inJson(body);
    }
}
