package grid.gateway.app.rewrite;

import static grid.gateway.app.rewrite.Fixtures.text;
import static grid.gateway.app.rewrite.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A JSON answer that stops being JSON: past its flaw a lenient reader (Json.NET, JSON5, Go at any depth, a partial
 * JSON reader) still reads members, so every id prefix there gets the serving cluster's tag middle, however its
 * characters are written, and an id value the flaw cut goes on as the start of its tag. Each text is streamed split at
 * every byte: the bytes out never depend on the chunking.
 */
class LooseIdsTest {
    private static final String MIDDLE = "east.1ef772aa..";
    private static final String FORGED = "resp_east.b0b0b0b0..forged";

    static Stream<Arguments> texts() {
        return Stream.of(
                // Json.NET reads single quotes, unquoted names, comments and trailing commas.
                Arguments.of(
                        "{'x':'y','id':'" + FORGED + "'}",
                        "{'x':'y','id':'resp_" + MIDDLE + FORGED.substring(5) + "'}"),
                Arguments.of(
                        "{id:\"resp_a\",'conversation':'conv_c'}",
                        "{id:\"resp_" + MIDDLE + "a\",'conversation':'conv_" + MIDDLE + "c'}"),
                Arguments.of(
                        "{\"x\":1,/* \" */\"id\":\"resp_a\"}", "{\"x\":1,/* \" */\"id\":\"resp_" + MIDDLE + "a\"}"),
                Arguments.of("{\"x\":[1,],\"ID\":\"resp_a\"}", "{\"x\":[1,],\"ID\":\"resp_" + MIDDLE + "a\"}"),
                // A second text after the first.
                Arguments.of(
                        "{\"id\":\"resp_a\"}{\"id\":\"resp_b\"}",
                        "{\"id\":\"resp_" + MIDDLE + "a\"}{\"id\":\"resp_" + MIDDLE + "b\"}"),
                // Past the flaw, any string of an id's shape, model text too: no reader agrees on what is a member.
                Arguments.of(
                        "{\"x\":'y',\"text\":\"see resp_a\"}", "{\"x\":'y',\"text\":\"see resp_" + MIDDLE + "a\"}"),
                // Characters written as escapes, as JSON and JSON5 read them; a JSON5 line continuation is nothing.
                Arguments.of("{'id':'\\u0072esp_a'}", "{'id':'\\u0072esp_" + MIDDLE + "a'}"),
                Arguments.of("{\"id\":\"res\\x70_a\"}", "{\"id\":\"res\\x70_" + MIDDLE + "a\"}"),
                Arguments.of("{\"id\":\"res\\\np_a\"}", "{\"id\":\"res\\\np_" + MIDDLE + "a\"}"),
                Arguments.of("{\"id\":\"res\\\r\np_a\"}", "{\"id\":\"res\\\r\np_" + MIDDLE + "a\"}"),
                Arguments.of("{\"id\":\"conv\\u005\\u005f\"}", "{\"id\":\"conv\\u005\\u005f" + MIDDLE + "\"}"),
                // The flaw inside an id value: what was held goes on as the start of its tag.
                Arguments.of("{\"id\":\"resp_a\u0001\"}", "{\"id\":\"resp_" + MIDDLE + "a\u0001\"}"),
                Arguments.of("{\"id\":\"resp_a", "{\"id\":\"resp_" + MIDDLE + "a"),
                // No prefix after the flaw: nothing changes.
                Arguments.of(
                        "{\"x\":'y',\"id\":\"msg_1\",\"t\":\"re sp_ r\\tesp_\"}",
                        "{\"x\":'y',\"id\":\"msg_1\",\"t\":\"re sp_ r\\tesp_\"}"),
                Arguments.of("[DONE]", "[DONE]"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("texts")
    void flawedText_everyIdPrefixPastTheFlawTagged_whateverTheChunking(String text, String expected) {
        byte[] bytes = utf8(text);
        for (int cut = 0; cut <= bytes.length; cut++) {
            JsonIdStream stream = new JsonIdStream(Fixtures.TAG_ANY);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EventSink sink = out::write;
            stream.accept(bytes, 0, cut, sink);
            stream.accept(bytes, cut, bytes.length - cut, sink);
            stream.finish(sink);
            assertThat(text(out.toByteArray())).as("cut at %d", cut).isEqualTo(expected);
        }
    }

    /**
     * An id value handed on before its prefix was whole (a relay's idle timeout), then a flaw before the prefix ends:
     * what came before the hand-on counts toward the prefix, as a lenient reader reads it.
     */
    @Test
    void handedOnBeforeItsPrefixWasWhole_thenAFlaw_prefixStillFollowedByTheMiddle() {
        for (String rest : List.of("s\\x70_a\"}", "s\\\np_a\"}", "sp_a\u0001\"}")) {
            JsonIdStream stream = new JsonIdStream(Fixtures.TAG_ANY);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EventSink sink = out::write;
            byte[] start = utf8("{\"id\":\"re");
            stream.accept(start, 0, start.length, sink);
            stream.handOnHeld(sink);
            byte[] bytes = utf8(rest);
            stream.accept(bytes, 0, bytes.length, sink);
            stream.finish(sink);
            int underscore = rest.indexOf('_') + 1;
            assertThat(text(out.toByteArray()))
                    .as(rest)
                    .isEqualTo("{\"id\":\"re" + rest.substring(0, underscore) + MIDDLE + rest.substring(underscore));
        }
    }
}
