package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Canonical JSON: sorted members, no white space, minimal escapes, exact numbers, last duplicate wins. */
class CanonicalJsonTest {
    private static String canonical(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        JsonNav nav = new JsonNav(bytes, new int[0]);
        ByteSink sink = new ByteSink(16);
        CanonicalJson.write(nav, nav.ws(0), sink, null);
        return new String(sink.toByteArray(), StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "{\"b\":1,\"a\":2}                | {\"a\":2,\"b\":1}",
                "{ \"a\" : [ 1 , 2 ] }            | {\"a\":[1,2]}",
                "{\"a\":1,\"a\":2}                | {\"a\":2}",
                "{\"b\":{\"z\":0,\"y\":[{\"d\":1,\"c\":2}]}} | {\"b\":{\"y\":[{\"c\":2,\"d\":1}],\"z\":0}}",
                "{\"é\":1,\"z\":2,\"Z\":3}        | {\"Z\":3,\"z\":2,\"é\":1}",
                "\"\\u0041\\/\\u00e9\"            | \"A/é\"",
                "\"q\\\"b\\\\\\n\\u001f\"         | \"q\\\"b\\\\\\u000a\\u001f\"",
                "[true,false,null]                | [true,false,null]",
            })
    void write_givesCanonicalForm(String input, String expected) {
        assertThat(canonical(input)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "0, 0",
        "-0, 0",
        "0.000, 0",
        "1, 1",
        "1.0, 1",
        "1e0, 1",
        "10E-1, 1",
        "100, 1e2",
        "0.25, 25e-2",
        "-1.50, -15e-1",
        "123456789012345678901234567890, 12345678901234567890123456789e1",
        "1e+2, 1e2",
        "0.0001e4, 1",
        "5E0000000000000000000001, 5e1"
    })
    void write_numberAsExactDecimalValue(String input, String expected) {
        assertThat(canonical(input)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"1e1234567890123456", "-2E-99999999999999999"})
    void write_exponentBeyondFifteenDigits_writtenAsSent(String input) {
        assertThat(canonical(input)).isEqualTo(input);
    }
}
