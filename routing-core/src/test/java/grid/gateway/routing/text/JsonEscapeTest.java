package grid.gateway.routing.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Decoding the escapes of accepted JSON strings, shared by the keyer and the gateway's stored-id rewriting. */
class JsonEscapeTest {
    private static String text(String content) {
        byte[] b = content.getBytes(StandardCharsets.UTF_8);
        return JsonEscape.text(b, 0, b.length);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "plain é€          | plain é€",
                "\\u0069d           | id",
                "a\\nb\\t\\r\\b\\f  | `a\nb\t\r\b\f`",
                "\\\"\\\\\\/        | \"\\/",
                "\\u00E9\\u20ac     | é€",
            })
    void text_decodesEveryEscape(String content, String expected) {
        assertThat(text(content.strip())).isEqualTo(expected);
    }

    @Test
    void text_surrogatePairIsOneCodePoint_loneSurrogateStaysAChar() {
        assertThat(text("\\ud83d\\ude00")).isEqualTo("😀");
        assertThat(text("x\\ud800y")).isEqualTo("x\ud800y");
        assertThat(text("\\ud800\\u0041")).isEqualTo("\ud800A");
        assertThat(text("\\ude00\\ud83d")).isEqualTo("\ude00\ud83d");
    }

    @Test
    void decode_givesCodePointAndNextIndex() {
        byte[] b = "a\\ud83d\\ude00b\\n".getBytes(StandardCharsets.US_ASCII);
        long pair = JsonEscape.decode(b, 1, b.length);
        assertThat(JsonEscape.codePoint(pair)).isEqualTo(0x1F600);
        assertThat(JsonEscape.next(pair)).isEqualTo(13);
        long newline = JsonEscape.decode(b, 14, b.length);
        assertThat(JsonEscape.codePoint(newline)).isEqualTo('\n');
        assertThat(JsonEscape.next(newline)).isEqualTo(16);
        // A pair cut by the range's end is read as a lone high surrogate.
        long cut = JsonEscape.decode(b, 1, 12);
        assertThat(JsonEscape.codePoint(cut)).isEqualTo(0xD83D);
        assertThat(JsonEscape.next(cut)).isEqualTo(7);
    }
}
