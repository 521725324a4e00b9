package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The model a body is routed by is the one the engine serves: vLLM reads request bodies with Python's {@code json}
 * ({@code json.loads} on the bytes), which keeps the last of duplicated names, skips a UTF-8 byte order mark, reads
 * UTF-16 and UTF-32, the literals {@code NaN} and {@code Infinity}, surrogates encoded in UTF-8 and nesting deeper
 * than the keyer's 256 levels. Each expectation here was checked against Python 3.11's {@code json.loads}.
 */
class PromptKeyerEngineReadingTest {
    private static final String MESSAGES = "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]";

    private final PromptKeyer keyer = new PromptKeyer();

    private PromptKeys key(byte[] body) {
        return keyer.key(ApiDialect.CHAT_COMPLETIONS, body);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void utf8ByteOrderMark_skippedAsPythonDoes_keyedLikeTheBodyWithout() {
        byte[] plain = utf8("{\"model\":\"beta\"," + MESSAGES + "}");
        byte[] marked = concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, plain);

        PromptKeys keys = key(marked);

        assertThat(keys.isKeyed()).isTrue();
        assertThat(keys.model()).contains("beta");
        assertThat(keys.keys()).isEqualTo(key(plain).keys());
    }

    @Test
    void duplicatedModel_routedByTheLast_keyedByNeither() {
        for (String body : new String[] {
            "{\"model\":\"alpha\"," + MESSAGES + ",\"model\":\"beta\"}",
            "{\"model\":null,\"model\":\"beta\"," + MESSAGES + "}",
            "{\"model\":\"beta\",\"cache_salt\":\"a\"," + MESSAGES + ",\"cache_salt\":\"b\"}",
        }) {
            PromptKeys keys = key(utf8(body));
            assertThat(keys.model()).as(body).contains("beta");
            assertThat(keys.noKeysReason()).as(body).contains(NoKeysReason.DUPLICATE_MEMBER);
        }
        assertThat(key(utf8("{\"model\":\"beta\"," + MESSAGES + ",\"model\":5}"))
                        .model())
                .as("the last copy is not a string")
                .isEmpty();
    }

    @Test
    void bodiesPythonReadsAndTheStrictGrammarRefuses_noKeysButTheEnginesModel() {
        String[] bodies = {
            "{\"model\":\"beta\",\"temperature\":NaN," + MESSAGES + "}",
            "{\"model\":\"beta\",\"temperature\":Infinity," + MESSAGES + "}",
            "{\"model\":\"beta\",\"temperature\":-Infinity," + MESSAGES + "}",
            "{\"model\":\"alpha\",\"top_p\":[NaN]," + MESSAGES + ",\"model\":\"beta\"}",
            "{\"mod\\u0065l\":\"b\\u0065ta\",\"seed\":NaN," + MESSAGES + "}",
        };
        for (String body : bodies) {
            PromptKeys keys = key(utf8(body));
            assertThat(keys.noKeysReason()).as(body).contains(NoKeysReason.INVALID_JSON);
            assertThat(keys.model()).as(body).contains("beta");
        }
        byte[] surrogate = concat(
                utf8("{\"model\":\"beta\",\"user\":\""),
                new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                utf8("\"," + MESSAGES + "}"));
        assertThat(key(surrogate).noKeysReason()).contains(NoKeysReason.INVALID_JSON);
        assertThat(key(surrogate).model()).as("a surrogate encoded in UTF-8").contains("beta");
    }

    /**
     * Python reads 300 levels; 100,000 exceed its recursion limit, and the engine refuses that body itself, wherever
     * it is sent: the model is read at any depth, since the engine's limit is its own (deeper on newer Pythons).
     */
    @Test
    void deeperThanTheKeyersLimit_parserLimitButTheEnginesModel() {
        for (int depth : new int[] {300, 100_000}) {
            String body =
                    "{\"tools\":" + "[".repeat(depth) + "]".repeat(depth) + "," + MESSAGES + ",\"model\":\"beta\"}";
            PromptKeys keys = key(utf8(body));
            assertThat(keys.noKeysReason()).as("depth " + depth).contains(NoKeysReason.PARSER_LIMIT);
            assertThat(keys.model()).as("depth " + depth).contains("beta");
        }
    }

    @Test
    void utf16AndUtf32_withAndWithoutAMark_theEnginesModel() {
        String body = "{\"model\":\"beta\",\"messages\":[{\"role\":\"user\",\"content\":\"h\u00e9 \ud83d\ude00\"}]}";
        for (String charset : new String[] {"UTF-16", "UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"}) {
            byte[] bytes = body.getBytes(Charset.forName(charset));
            PromptKeys keys = key(bytes);
            assertThat(keys.model()).as(charset).contains("beta");
            assertThat(keys.isKeyed()).as(charset).isFalse();
        }
        byte[] utf32WithMark =
                concat(new byte[] {(byte) 0xFF, (byte) 0xFE, 0, 0}, body.getBytes(Charset.forName("UTF-32LE")));
        assertThat(key(utf32WithMark).model()).as("UTF-32 with its mark").contains("beta");
        byte[] utf16LoneSurrogate = "{\"model\":\"beta\",\"user\":\"\ud800\"}".getBytes(Charset.forName("UTF-16LE"));
        utf16LoneSurrogate[utf16LoneSurrogate.length - 6] = 0x00;
        utf16LoneSurrogate[utf16LoneSurrogate.length - 5] = (byte) 0xD8;
        assertThat(key(utf16LoneSurrogate).model())
                .as("a lone surrogate in UTF-16 (surrogatepass)")
                .contains("beta");
    }

    @Test
    void bodiesPythonRefusesToo_noModel() {
        String valid = "{\"model\":\"beta\"," + MESSAGES + "}";
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        byte[][] bodies = {
            utf8(valid + " x"),
            utf8("{\"model\":\"beta\",\"t\":nan}"),
            utf8("{\"model\":\"beta\",\"t\":+Infinity}"),
            utf8("{\"model\":\"beta\",\"t\":-NaN}"),
            utf8("{\"model\":\"beta\",\"t\":Infinit}"),
            utf8("{'model':'beta'}"),
            utf8("{\"model\":\"beta\",}"),
            concat(bom, bom, utf8(valid)),
            concat(utf8(" "), bom, utf8(valid)),
            concat(utf8("{\"model\":\"beta\",\"user\":\""), new byte[] {(byte) 0xC0, (byte) 0xAF}, utf8("\"}")),
            Undecodable.oddLengthUtf16(valid),
            Undecodable.utf32AboveUnicode(valid),
        };
        for (byte[] body : bodies) {
            PromptKeys keys = key(body);
            assertThat(keys.model())
                    .as(new String(body, StandardCharsets.ISO_8859_1))
                    .isEqualTo(Optional.empty());
            assertThat(keys.isKeyed()).isFalse();
        }
    }

    /** Bodies Python's decoder cannot decode. */
    private static final class Undecodable {
        /** UTF-16 with a byte missing at the end: Python's "truncated data". */
        static byte[] oddLengthUtf16(String text) {
            byte[] bytes = text.getBytes(Charset.forName("UTF-16LE"));
            return java.util.Arrays.copyOf(bytes, bytes.length - 1);
        }

        /** UTF-32 whose last unit is above U+10FFFF. */
        static byte[] utf32AboveUnicode(String text) {
            byte[] bytes = (text + " ").getBytes(Charset.forName("UTF-32LE"));
            bytes[bytes.length - 2] = 0x11;
            return bytes;
        }
    }
}
