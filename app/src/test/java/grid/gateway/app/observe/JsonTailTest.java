package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The usage of a JSON answer longer than the tail the relay keeps of it ({@link CachedTokens#usageInJsonTail}): read
 * from the top-level members the tail holds whole, never from a member only partly kept, nor from text inside a string
 * or a nested object that looks like one.
 */
class JsonTailTest {
    /** What the relay keeps of a body: its last 64 KiB ({@code BodyTail.CAPACITY}). */
    private static final int KEPT = 64 * 1024;

    @Test
    void recordedVllmChatAnswerWithALongGeneration_lastKeptBytes_cachedTokensRead() {
        // A real vLLM answer (testdata/vllm/chat_long_2.json: 2,560 tokens cached), its generated text made long.
        JsonObject recorded = recordedBody("chat_long_2.json");
        JsonObject message = recorded.getJsonArray("choices").getJsonObject(0).getJsonObject("message");
        String body = recorded.toString()
                .replace("\"content\":" + message.get("content"), "\"content\":\"" + "word ".repeat(40_000) + "\"");

        CachedTokens.UsageReading reading = CachedTokens.usageInJsonTail(tail(body));

        assertThat(body.length()).isGreaterThan(2 * KEPT);
        assertThat(reading.usage()).isTrue();
        assertThat(reading.cachedTokens()).hasValue(2560);
    }

    @Test
    void responsesAnswer_usageAmongTheLastMembers_read() {
        String body = "{\"id\":\"resp_1\",\"output\":[{\"type\":\"message\",\"content\":[{\"text\":\""
                + "t".repeat(100_000) + "\"}]}],\"usage\":{\"input_tokens\":900,\"input_tokens_details\":"
                + "{\"cached_tokens\":768}},\"user\":null}";

        assertThat(CachedTokens.usageInJsonTail(tail(body)).cachedTokens()).hasValue(768);
    }

    @Test
    void usageLookalikeInsideAStringOrANestedObject_notRead() {
        String escaped = "{\"choices\":[{\"text\":\"" + "x".repeat(100_000)
                + " \\\"usage\\\":{\\\"prompt_tokens_details\\\":{\\\"cached_tokens\\\":5}}\"}],\"object\":\"c\"}";
        String nested = "{\"choices\":[{\"text\":\"" + "x".repeat(100_000)
                + "\",\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5}}}],\"object\":\"c\"}";

        assertThat(CachedTokens.usageInJsonTail(tail(escaped))).isEqualTo(CachedTokens.UsageReading.NONE);
        assertThat(CachedTokens.usageInJsonTail(tail(nested))).isEqualTo(CachedTokens.UsageReading.NONE);
    }

    @Test
    void stringEndingInBackslashes_quotesClassifiedByTheirRun() {
        // "a\\" ends its string (an even run); "b\"" does not (an odd one): both before the usage member.
        String body = "{\"pad\":\"" + "p".repeat(100_000) + "\",\"a\":\"a\\\\\",\"b\":\"b\\\",\\\"usage\\\":{}\","
                + "\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":42}}}";

        assertThat(CachedTokens.usageInJsonTail(tail(body)).cachedTokens()).hasValue(42);
    }

    @Test
    void usageCutByTheTailsStart_reportsNothing() {
        // The usage member itself is longer than what is kept: none of it is read, not a partial guess.
        String body = "{\"id\":\"x\",\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":7},\"pad\":\""
                + "p".repeat(100_000) + "\"}}";

        assertThat(CachedTokens.usageInJsonTail(tail(body))).isEqualTo(CachedTokens.UsageReading.NONE);
    }

    @Test
    void wholeTextsAndNonObjects_noMembersStart() {
        assertThat(JsonTail.membersStart(ascii("{\"usage\":{},\"a\":1}"))).isEqualTo(-1);
        assertThat(JsonTail.membersStart(ascii("1,2,3]"))).isEqualTo(-1);
        assertThat(JsonTail.membersStart(ascii("data: [DONE]\n\n"))).isEqualTo(-1);
        assertThat(JsonTail.membersStart(ascii(""))).isEqualTo(-1);
        assertThat(JsonTail.membersStart(ascii("xx\",\"a\":1}\n"))).isEqualTo(3);
        // A quote a backslash before the tail may escape ends the scan: the members right of it are still read.
        assertThat(JsonTail.membersStart(ascii("\\\"x\",\"a\":1}"))).isEqualTo(4);
        assertThat(JsonTail.membersStart(ascii("\"x\",\"a\":1}"))).isEqualTo(3);
    }

    /** The last {@link #KEPT} bytes of {@code body}, as the relay keeps them. */
    private static byte[] tail(String body) {
        byte[] bytes = ascii(body);
        return Arrays.copyOfRange(bytes, Math.max(0, bytes.length - KEPT), bytes.length);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The response body of a recorded exchange in the repository's {@code testdata/vllm/}. */
    private static JsonObject recordedBody(String name) {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path file = at.resolve("testdata/vllm").resolve(name);
            if (Files.isRegularFile(file)) {
                try (JsonReader reader = Json.createReader(new StringReader(Files.readString(file)))) {
                    return reader.readObject().getJsonObject("response").getJsonObject("body");
                } catch (IOException e) {
                    throw new AssertionError("cannot read " + file, e);
                }
            }
        }
        throw new AssertionError("testdata/vllm/" + name + " not found");
    }
}
