package grid.gateway.routing.keyer;

import static grid.gateway.routing.keyer.JsonText.arr;
import static grid.gateway.routing.keyer.JsonText.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** "A tool list, tool call arguments, or other JSON value over 16 KiB keys by a digest of its bytes as sent." */
class OversizeValueTest {
    private final PromptKeyer keyer = new PromptKeyer();

    /** A tool list that takes exactly {@code size} bytes as sent. */
    private static List<Object> toolsOfSize(int size) {
        int overhead =
                JsonText.compact(arr(obj("name", "f", "description", ""))).length();
        List<Object> tools = arr(obj("name", "f", "description", "d".repeat(size - overhead)));
        assertThat(JsonText.compact(tools)).hasSize(size);
        return tools;
    }

    /** Tool-call arguments whose JSON string takes exactly {@code size} bytes as sent, quotes included. */
    private static String argumentsOfSize(int size) {
        int overhead = JsonText.compact("{\"a\":\"\"}").length();
        String arguments = "{\"a\":\"" + "v".repeat(size - overhead) + "\"}";
        assertThat(JsonText.compact(arguments)).hasSize(size);
        return arguments;
    }

    private static Map<String, Object> chatWithTools(List<Object> tools) {
        return obj("model", "m", "tools", tools, "messages", arr(obj("role", "user", "content", "hi")));
    }

    @Test
    void toolList_exactly16384Bytes_keyedInCanonicalForm() {
        String stream =
                KeyerProbe.shown(ApiDialect.CHAT_COMPLETIONS, JsonText.compact(chatWithTools(toolsOfSize(16_384))));
        assertThat(stream).startsWith("<F5>{\"description\":\"ddd");
    }

    @Test
    void toolList_16385Bytes_keyedByOneDigest() {
        byte[] stream = KeyerProbe.canonicalStream(
                ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(chatWithTools(toolsOfSize(16_385))));
        assertThat(stream[0] & 0xFF).isEqualTo(Segment.TOOL);
        assertThat(stream[1] & 0xFF).isEqualTo(Segment.OVERSIZE);
        // TOOL, OVERSIZE, 8 digest bytes, then the first message.
        assertThat(stream[10] & 0xFF).isEqualTo(Segment.MESSAGE);
    }

    @Test
    void toolList_over16KiB_digestIsOfBytesAsSent() {
        // Key order inside an oversized list is not canonicalised, so reordering changes its keys.
        List<Object> tools = toolsOfSize(16_385);
        String sent = JsonText.compact(chatWithTools(tools));
        String reordered = sent.replace("{\"name\":\"f\",\"description\":", "{\"description\":")
                .replace("\"}],\"messages\"", "\",\"name\":\"f\"}],\"messages\"");
        assertThat(reordered).hasSameSizeAs(sent).isNotEqualTo(sent);
        assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, reordered.getBytes(StandardCharsets.UTF_8))
                        .keys())
                .isNotEqualTo(keyer.key(ApiDialect.CHAT_COMPLETIONS, sent.getBytes(StandardCharsets.UTF_8))
                        .keys());
    }

    @Test
    void toolList_atOrUnder16KiB_reorderedKeysSame() {
        List<Object> tools = toolsOfSize(16_384);
        String sent = JsonText.compact(chatWithTools(tools));
        String reordered = sent.replace("{\"name\":\"f\",\"description\":", "{\"description\":")
                .replace("\"}],\"messages\"", "\",\"name\":\"f\"}],\"messages\"");
        assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, reordered.getBytes(StandardCharsets.UTF_8))
                        .keys())
                .isEqualTo(keyer.key(ApiDialect.CHAT_COMPLETIONS, sent.getBytes(StandardCharsets.UTF_8))
                        .keys());
    }

    @Test
    void toolCallArguments_exactly16384Bytes_parsedAndCanonicalised() {
        String stream = KeyerProbe.shown(
                ApiDialect.CHAT_COMPLETIONS,
                JsonText.compact(
                        obj("model", "m", "messages", arr(PromptKeyerTest.toolCall("f", argumentsOfSize(16_384))))));
        assertThat(stream).contains("<F9>f<FC>{\"a\":\"vvv");
    }

    @Test
    void toolCallArguments_16385Bytes_keyedByOneDigest() {
        String stream = KeyerProbe.shown(
                ApiDialect.CHAT_COMPLETIONS,
                JsonText.compact(
                        obj("model", "m", "messages", arr(PromptKeyerTest.toolCall("f", argumentsOfSize(16_385))))));
        assertThat(stream).contains("<F9>f<FC><F6>").doesNotContain("vvv");
    }

    @Test
    void anthropicToolUseInput_over16KiB_keyedByOneDigest() {
        Map<String, Object> body = obj(
                "model",
                "c",
                "max_tokens",
                1,
                "messages",
                arr(obj(
                        "role",
                        "assistant",
                        "content",
                        arr(obj("type", "tool_use", "id", "t", "name", "f", "input", obj("a", "w".repeat(17_000)))))));
        assertThat(KeyerProbe.shown(ApiDialect.MESSAGES, JsonText.compact(body)))
                .contains("<F9>f<FC><F6>");
    }
}
