package grid.gateway.routing.text;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.text.JsonTokenizer.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one grammar: exactly RFC 8259 JSON text with UTF-8 strings, within the depth limit; and the events it reports,
 * by byte offsets.
 */
class JsonTokenizerTest {
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
        assertThat(JsonTokenizer.isValid(text.getBytes(StandardCharsets.UTF_8))).isTrue();
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
        assertThat(JsonTokenizer.isValid(text.getBytes(StandardCharsets.UTF_8))).isFalse();
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
        assertThat(JsonTokenizer.isValid(text)).isFalse();
    }

    @Test
    void isValid_everyTwoByteString_agreesWithTheStrictDecoder() {
        // Two-byte sequences take a shortcut in the tokenizer's string loop; every pair of a non-ASCII first byte and
        // any second byte must still be judged as a strict UTF-8 decoder judges it.
        for (int lead = 0x80; lead <= 0xFF; lead++) {
            for (int next = 0; next <= 0xFF; next++) {
                byte[] pair = {(byte) lead, (byte) next};
                boolean decodes;
                try {
                    StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(pair));
                    decodes = true;
                } catch (java.nio.charset.CharacterCodingException e) {
                    decodes = false;
                }
                byte[] text = {'"', pair[0], pair[1], '"'};
                assertThat(JsonTokenizer.isValid(text))
                        .as("%02X %02X", lead, next)
                        .isEqualTo(decodes);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {255, 256})
    void isValid_depthAtLimit_acceptedBeyondRefused(int depth) {
        byte[] text = ("[".repeat(depth) + "]".repeat(depth)).getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.isValid(text)).isTrue();
        byte[] deeper = ("[".repeat(depth + 1) + "]".repeat(depth + 1)).getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.isValid(deeper)).isEqualTo(depth + 1 <= JsonTokenizer.MAX_DEPTH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":\"xx\"}", "{\"a\":[\"xx\",1],\"b\":{\"c\":\"xx\"}}"})
    void validate_everyProperPrefix_refusedAsInvalid(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        for (int length = 0; length < bytes.length; length++) {
            assertThat(JsonTokenizer.isValid(java.util.Arrays.copyOf(bytes, length)))
                    .isFalse();
        }
    }

    @Test
    void tokenize_depthBeyondLimit_tooDeepNotInvalid() {
        byte[] deep = ("[".repeat(100_000) + "]".repeat(100_000)).getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.tokenize(deep, JsonListener.NONE)).isEqualTo(JsonTokenizer.Outcome.TOO_DEEP);
        byte[] unclosed = "{\"a\":".repeat(200_000).getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.tokenize(unclosed, JsonListener.NONE)).isEqualTo(JsonTokenizer.Outcome.TOO_DEEP);
        byte[] broken = "[[1}]".getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.tokenize(broken, JsonListener.NONE)).isEqualTo(JsonTokenizer.Outcome.INVALID);
    }

    @Test
    void tokenize_everyToken_reportedWithOffsetsAndDepth() {
        String text = " {\"a\" : [1, \"x\\n\"], \"b\":{\"c\":null}, \"d\":true} ";
        List<String> events = new ArrayList<>();
        Outcome outcome = JsonTokenizer.tokenize(text.getBytes(StandardCharsets.UTF_8), new Recorder(text, events));
        assertThat(outcome).isEqualTo(Outcome.VALID);
        assertThat(events)
                .containsExactly(
                        "open { 1 @0",
                        "name \"a\" @1",
                        "open [ 8 @1",
                        "scalar 1 @2",
                        "string \"x\\n\" escaped @2",
                        "close ] 18 @1",
                        "name \"b\" @1",
                        "open { 24 @1",
                        "name \"c\" @2",
                        "scalar null @2",
                        "close } 34 @1",
                        "name \"d\" @1",
                        "scalar true @1",
                        "close } 45 @0");
    }

    @Test
    void tokenize_range_readsOnlyInsideIt() {
        byte[] text = "xx[1]yy".getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.tokenize(text, 2, 5, JsonListener.NONE)).isEqualTo(Outcome.VALID);
        assertThat(JsonTokenizer.tokenize(text, 2, 4, JsonListener.NONE)).isEqualTo(Outcome.INVALID);
        assertThat(JsonTokenizer.tokenize(text, 2, 6, JsonListener.NONE)).isEqualTo(Outcome.INVALID);
        // A string or literal cut by the range's end is cut, whatever bytes follow it in the array.
        byte[] cut = "\"ab\"".getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.tokenize(cut, 0, 3, JsonListener.NONE)).isEqualTo(Outcome.INVALID);
        byte[] literal = "true".getBytes(StandardCharsets.US_ASCII);
        assertThat(JsonTokenizer.tokenize(literal, 0, 3, JsonListener.NONE)).isEqualTo(Outcome.INVALID);
    }

    /** Writes each event as one line: kind, token text or end offset, and depth. */
    private record Recorder(String text, List<String> events) implements JsonListener {
        @Override
        public void open(int at, boolean object, int depth) {
            events.add("open " + text.charAt(at) + " " + at + " @" + depth);
        }

        @Override
        public void close(int end, int depth) {
            events.add("close " + text.charAt(end - 1) + " " + end + " @" + depth);
        }

        @Override
        public void name(int start, int end, boolean escaped, int depth) {
            events.add("name " + text.substring(start, end) + (escaped ? " escaped" : "") + " @" + depth);
        }

        @Override
        public void string(int start, int end, boolean escaped, int depth) {
            events.add("string " + text.substring(start, end) + (escaped ? " escaped" : "") + " @" + depth);
        }

        @Override
        public void scalar(int start, int end, int depth) {
            events.add("scalar " + text.substring(start, end) + " @" + depth);
        }
    }
}
