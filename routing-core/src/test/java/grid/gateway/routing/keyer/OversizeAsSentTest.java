package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The 16 KiB rule counts bytes "as sent": multi-byte UTF-8 counts its bytes, an escape counts as written (six bytes
 * for {@code \u00e9}, two for {@code \n}), and a string's quotes count. Exactly 16,384 such bytes keeps canonical form,
 * one more is a digest, for every kind of value the keyer canonicalises.
 */
class OversizeAsSentTest {
    private static final int LIMIT = 16_384;

    /** JSON string content (as written in the body) whose pieces are {@code unit}, padded with 'd' to fill. */
    private static String filled(String unit, int bytes) {
        int unitBytes = unit.getBytes(StandardCharsets.UTF_8).length;
        return unit.repeat(bytes / unitBytes) + "d".repeat(bytes % unitBytes);
    }

    private static int size(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    /** A tool list that takes exactly {@code size} bytes as sent, its description made of {@code unit}. */
    private static String toolList(String unit, int size) {
        String empty = "[{\"name\":\"f\",\"description\":\"\"}]";
        String list = "[{\"name\":\"f\",\"description\":\"" + filled(unit, size - size(empty)) + "\"}]";
        assertThat(size(list)).isEqualTo(size);
        return list;
    }

    /** Chat tool-call arguments, a JSON string, taking exactly {@code size} bytes as sent, quotes included. */
    private static String argumentsString(String unit, int size) {
        String empty = "\"{\\\"a\\\":\\\"\\\"}\"";
        String arguments = "\"{\\\"a\\\":\\\"" + filled(unit, size - size(empty)) + "\\\"}\"";
        assertThat(size(arguments)).isEqualTo(size);
        return arguments;
    }

    private static byte[] stream(ApiDialect dialect, String body) {
        return KeyerProbe.canonicalStream(dialect, body.getBytes(StandardCharsets.UTF_8));
    }

    private static boolean digested(byte[] stream, int at) {
        return (stream[at] & 0xFF) == Segment.OVERSIZE;
    }

    @ParameterizedTest
    @ValueSource(strings = {"é", "€", "😀", "\\u00e9", "\\n", "\\\"", "a"})
    void toolList_countedAsSent(String unit) {
        for (int size : new int[] {LIMIT, LIMIT + 1}) {
            String body = "{\"model\":\"m\",\"tools\":" + toolList(unit, size)
                    + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
            byte[] stream = stream(ApiDialect.CHAT_COMPLETIONS, body);
            assertThat(stream[0] & 0xFF).isEqualTo(Segment.TOOL);
            assertThat(digested(stream, 1)).as("%d bytes as sent", size).isEqualTo(size > LIMIT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"é", "😀", "\\u00e9", "\\\\t"})
    void chatArgumentsString_countedAsSent(String unit) {
        for (int size : new int[] {LIMIT, LIMIT + 1}) {
            String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\","
                    + "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":" + argumentsString(unit, size)
                    + "}}]}]}";
            String shown = KeyerProbe.show(stream(ApiDialect.CHAT_COMPLETIONS, body));
            assertThat(shown)
                    .as("%d bytes as sent", size)
                    .contains(size > LIMIT ? "<F9>f<FC><F6>" : "<F9>f<FC>{\"a\":\"");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"é", "\\u00e9"})
    void responsesFunctionCallArguments_countedAsSent(String unit) {
        for (int size : new int[] {LIMIT, LIMIT + 1}) {
            String body = "{\"model\":\"m\",\"input\":[{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"f\","
                    + "\"arguments\":" + argumentsString(unit, size) + "}]}";
            String shown = KeyerProbe.show(stream(ApiDialect.RESPONSES, body));
            assertThat(shown)
                    .as("%d bytes as sent", size)
                    .contains(size > LIMIT ? "<F9>f<FC><F6>" : "<F9>f<FC>{\"a\":\"");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"é", "\\u00e9"})
    void anthropicStructuredToolResult_countedAsSent(String unit) {
        for (int size : new int[] {LIMIT, LIMIT + 1}) {
            String empty = "[{\"type\":\"web_search_result\",\"title\":\"\"}]";
            String content =
                    "[{\"type\":\"web_search_result\",\"title\":\"" + filled(unit, size - size(empty)) + "\"}]";
            assertThat(size(content)).isEqualTo(size);
            String body = "{\"model\":\"c\",\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":"
                    + "\"web_search_tool_result\",\"tool_use_id\":\"t\",\"content\":" + content + "}]}]}";
            String shown = KeyerProbe.show(stream(ApiDialect.MESSAGES, body));
            assertThat(shown).as("%d bytes as sent", size).contains(size > LIMIT ? "<FA><F6>" : "<FA>[{\"title\":");
        }
    }
}
