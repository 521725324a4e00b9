package grid.gateway.routing.keyer;

import jakarta.json.Json;
import jakarta.json.stream.JsonParser;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The keyer against a bare streaming parse of the same bytes, in the same run.
 *
 * <p>Run: {@code mvn -Pbench -pl routing-core -am package -DskipTests && java -jar routing-core/target/benchmarks.jar
 * PromptKeyerBenchmark}. Throughput in MB/s is {@code body bytes / time per op}; compare the three methods of one
 * body with each other, never across machines.
 *
 * <ul>
 *   <li>{@code key}: the whole keyer (validation pass, canonical walk, block hashing).
 *   <li>{@code keyOneCandidate}: the keyer when keys could change no decision (one cluster serves the model):
 *       validation, model and salt, no walk.
 *   <li>{@code validateOnly}: the keyer's own first pass alone.
 *   <li>{@code parssonParse}: jakarta.json's streaming parser (Parsson) reading every event, nothing kept.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PromptKeyerBenchmark {
    @Param({"short-chat-2k", "long-chat-64k", "agent-128k", "image-2m"})
    public String body;

    private final PromptKeyer keyer = new PromptKeyer();
    private byte[] bytes;
    private ApiDialect dialect;

    @Setup
    public void setUp() {
        dialect = ApiDialect.CHAT_COMPLETIONS;
        bytes = switch (body) {
            case "short-chat-2k" -> chat(2 * 1024);
            case "long-chat-64k" -> chat(64 * 1024);
            case "agent-128k" -> agent();
            case "image-2m" -> image();
            default -> throw new IllegalArgumentException(body);
        };
        if (!keyer.key(dialect, bytes).isKeyed()) {
            throw new IllegalStateException("benchmark body is not keyed: " + body);
        }
    }

    @Benchmark
    public PromptKeys key() {
        return keyer.key(dialect, bytes);
    }

    /** What the gateway pays for a body whose model one cluster serves: validated, model read, not walked. */
    @Benchmark
    public PromptKeys keyOneCandidate() {
        return keyer.key(dialect, bytes, model -> false);
    }

    @Benchmark
    public ValidatedBody validateOnly() {
        return BodyIndex.validate(bytes);
    }

    @Benchmark
    public void parssonParse(Blackhole hole) {
        try (JsonParser parser = Json.createParser(new ByteArrayInputStream(bytes))) {
            while (parser.hasNext()) {
                hole.consume(parser.next());
            }
        }
    }

    /** A conversation of alternating user and assistant turns of prose, about {@code size} bytes. */
    static byte[] chat(int size) {
        SplittableRandom random = new SplittableRandom(1);
        StringBuilder json = new StringBuilder("{\"model\":\"demo-model\",\"temperature\":0.7,\"stream\":true,");
        json.append("\"messages\":[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"}");
        int turn = 0;
        while (json.length() < size - 400) {
            json.append(",{\"role\":\"")
                    .append(turn++ % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":\"");
            prose(json, 200 + random.nextInt(400), random);
            json.append("\"}");
        }
        return json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** An agent request: a 20 KiB tool list, then turns with tool calls and results, 128 KiB in all. */
    static byte[] agent() {
        SplittableRandom random = new SplittableRandom(2);
        StringBuilder json = new StringBuilder("{\"model\":\"demo-model\",\"tools\":[");
        for (int t = 0; json.length() < 20 * 1024; t++) {
            json.append(t == 0 ? "" : ",")
                    .append("{\"type\":\"function\",\"function\":{\"name\":\"tool_")
                    .append(t)
                    .append("\",\"description\":\"");
            prose(json, 300, random);
            json.append("\",\"parameters\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},")
                    .append("\"limit\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"path\"]}}}");
        }
        json.append("],\"messages\":[{\"role\":\"user\",\"content\":\"Fix the failing test.\"}");
        for (int call = 0; json.length() < 128 * 1024 - 600; call++) {
            json.append(",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_")
                    .append(call)
                    .append("\",\"type\":\"function\",\"function\":{\"name\":\"tool_")
                    .append(call % 7)
                    .append("\",\"arguments\":\"{\\\"path\\\": \\\"src/main/File")
                    .append(call)
                    .append(".java\\\", \\\"limit\\\": 200}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"call_")
                    .append(call)
                    .append("\",\"content\":\"");
            prose(json, 800, random);
            json.append("\"}");
        }
        return json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A short chat with one 2 MiB base64 image. */
    static byte[] image() {
        byte[] pixels = new byte[3 * 512 * 1024];
        new SplittableRandom(3).nextBytes(pixels);
        String data = Base64.getEncoder().encodeToString(pixels);
        return ("{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                        + "\"text\":\"What is in this picture?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":"
                        + "\"data:image/png;base64," + data + "\"}}]}]}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static void prose(StringBuilder out, int length, SplittableRandom random) {
        String[] words = {"the", "cache", "prefix", "routing", "cluster", "é", "queue", "token", "site", "model"};
        int start = out.length();
        while (out.length() - start < length) {
            out.append(words[random.nextInt(words.length)]).append(random.nextInt(10) == 0 ? ".\\n" : " ");
        }
    }
}
