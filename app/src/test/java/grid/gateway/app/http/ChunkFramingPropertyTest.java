package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Seeded fuzzing of inbound chunk framing: 300 chunked bodies cut at random points, one chunk-size line
 * (or the last chunk) mutated by a random rule, a hidden request pipelined behind. Whatever the mutation, the answer
 * is never a 5xx, a refused body is one 400 and a closed connection, an accepted body reaches the engine exactly as
 * sent, and the hidden request never does.
 */
class ChunkFramingPropertyTest {
    private static final String CHAT = "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\""
            + "a fuzzed prompt, long enough to cut into several chunks at random places\"}]}";
    private static final String HIDDEN = "POST /pause HTTP/1.1\r\nHost: engine\r\nContent-Length: 0\r\n\r\n";

    /** A mutation of one chunk-size line, and whether Helidon still accepts the body it gives. */
    private record Rule(String name, boolean accepted) {}

    private static final List<Rule> RULES = List.of(
            new Rule("none", true),
            new Rule("upper-case hex", true),
            new Rule("leading zeros", true),
            new Rule("plus sign", true),
            new Rule("extension", false),
            new Rule("space then extension", false),
            new Rule("minus sign", false),
            new Rule("0x prefix", false),
            new Rule("overflow", false),
            new Rule("not hex", false),
            new Rule("bare LF", false),
            new Rule("extension on the last chunk", false),
            new Rule("trailer", false));

    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private static String sizeLine(int size, Rule rule, boolean mutated) {
        String hex = Integer.toHexString(size);
        if (!mutated) {
            return hex + "\r\n";
        }
        return switch (rule.name()) {
            case "upper-case hex" -> hex.toUpperCase(Locale.ROOT) + "\r\n";
            case "leading zeros" -> "000" + hex + "\r\n";
            case "plus sign" -> "+" + hex + "\r\n";
            case "extension" -> hex + ";x=1\r\n";
            case "space then extension" -> hex + " ;x\r\n";
            case "minus sign" -> "-" + hex + "\r\n";
            case "0x prefix" -> "0x" + hex + "\r\n";
            case "overflow" -> "ffffffffffffffffff" + hex + "\r\n";
            case "not hex" -> hex + "g\r\n";
            case "bare LF" -> hex + "\n";
            default -> hex + "\r\n";
        };
    }

    private static String chunked(SplittableRandom random, Rule rule) {
        StringBuilder out = new StringBuilder();
        int chunks = 1 + random.nextInt(5);
        int mutated = random.nextInt(chunks);
        int at = 0;
        for (int i = 0; i < chunks; i++) {
            int end = i == chunks - 1 ? CHAT.length() : at + 1 + random.nextInt(CHAT.length() - at - (chunks - i));
            out.append(sizeLine(end - at, rule, i == mutated))
                    .append(CHAT, at, end)
                    .append("\r\n");
            at = end;
        }
        out.append(
                switch (rule.name()) {
                    case "extension on the last chunk" -> "0;x=1\r\n\r\n";
                    case "trailer" -> "0\r\nX-T: 1\r\n\r\n";
                    default -> "0\r\n\r\n";
                });
        return out.toString();
    }

    @Test
    void randomChunkFraming_400AndClosedOrForwardedExactly_neverA5xxNeverTheHiddenRequest() {
        SplittableRandom random = new SplittableRandom(0x13C4L);
        List<String> paths = List.of("/v1/chat/completions", "/v1/messages", "/v1/responses");
        for (int trial = 0; trial < 300; trial++) {
            Rule rule = RULES.get(random.nextInt(RULES.size()));
            String path = paths.get(random.nextInt(paths.size()));
            String request = "POST " + path + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + chunked(random, rule) + HIDDEN;
            int before = GRID.engine.requests().size();
            RawHttp.Reply reply;
            boolean closed;
            try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
                reply = client.send(request).readResponses(2);
                // An accepted body keeps its connection open (the hidden request was answered on it).
                closed = reply.closed() || (!rule.accepted() && client.closedWithin(5_000));
            }
            String what = "trial " + trial + " (" + rule.name() + ", " + path + "): " + reply.text();
            List<ScriptedUpstream.Request> got = GRID.engine
                    .requests()
                    .subList(before, GRID.engine.requests().size());
            assertThat(reply.status()).as(what).isBetween(200, 499);
            assertThat(got)
                    .as(what)
                    .extracting(ScriptedUpstream.Request::target)
                    .doesNotContain("/pause");
            if (rule.accepted()) {
                assertThat(reply.status()).as(what).isEqualTo(200);
                assertThat(got).as(what).hasSize(1);
                assertThat(got.getFirst().body()).as(what).isEqualTo(CHAT.getBytes(StandardCharsets.UTF_8));
            } else {
                assertThat(reply.status()).as(what).isEqualTo(400);
                assertThat(reply.responses()).as(what).isEqualTo(1);
                assertThat(closed).as(what).isTrue();
                assertThat(got).as(what).isEmpty();
            }
        }
    }
}
