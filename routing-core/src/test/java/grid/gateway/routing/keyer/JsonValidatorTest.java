package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The first pass accepts exactly RFC 8259 JSON text with UTF-8 strings, within the depth limit. */
class JsonValidatorTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "{}",
                "[]",
                "0",
                "-0",
                "1.5e-3",
                "1E+9",
                "\"\"",
                "true",
                "false",
                "null",
                " {\"a\" : [ 1 , {} ] } ",
                "\"\\u00e9\\ud83d\\ude00\\n\\/\"",
                "\"\\ud800 lone surrogate escape\"",
                "\"é€😀\"",
                "{\"a\":1,\"a\":2}",
                "[1,[2,[3]]]"
            })
    void isValid_rfc8259Text_accepted(String text) {
        assertThat(JsonValidator.isValid(text.getBytes(StandardCharsets.UTF_8))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "{",
                "}",
                "[1,]",
                "{\"a\":1,}",
                "{\"a\" 1}",
                "{a:1}",
                "01",
                "1.",
                ".5",
                "-",
                "1e",
                "+1",
                "NaN",
                "tru",
                "nul",
                "\"abc",
                "\"\\x\"",
                "\"\\u12\"",
                "\"\\u12G4\"",
                "[1 2]",
                "{} {}",
                "{}x",
                "'a'",
                "\"tab\there\"",
                "[\"a\"}",
                "{\"a\":1]",
                "\uFEFF{}"
            })
    void isValid_malformedText_refused(String text) {
        assertThat(JsonValidator.isValid(text.getBytes(StandardCharsets.UTF_8))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "C3",
                "C0 80",
                "C1 BF",
                "E0 80 80",
                "ED A0 80",
                "F0 80 80 80",
                "F4 90 80 80",
                "F5 80 80 80",
                "FF",
                "80",
                "E2 82",
                "F0 9F 98"
            })
    void isValid_invalidUtf8InString_refused(String hex) {
        String[] parts = hex.split(" ");
        byte[] text = new byte[parts.length + 2];
        text[0] = '"';
        for (int i = 0; i < parts.length; i++) {
            text[i + 1] = (byte) Integer.parseInt(parts[i], 16);
        }
        text[text.length - 1] = '"';
        assertThat(JsonValidator.isValid(text)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {255, 256})
    void isValid_depthAtLimit_acceptedBeyondRefused(int depth) {
        byte[] text = ("[".repeat(depth) + "]".repeat(depth)).getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonValidator.isValid(text)).isTrue();
        byte[] deeper = ("[".repeat(depth + 1) + "]".repeat(depth + 1)).getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonValidator.isValid(deeper)).isEqualTo(depth + 1 <= JsonValidator.MAX_DEPTH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":\"xx\"}", "{\"a\":[\"xx\",1],\"b\":{\"c\":\"xx\"}}"})
    void validate_everyProperPrefix_refusedAsInvalid(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        for (int length = 0; length < bytes.length; length++) {
            assertThat(JsonValidator.isValid(java.util.Arrays.copyOf(bytes, length)))
                    .isFalse();
        }
    }
}
