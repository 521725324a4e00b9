package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * "The keyer never throws on any input": each hostile body gets keys or a no-keys reason, never an exception,
 * a stack overflow, or a {@link NoKeysReason#KEYER_FAULT}.
 */
class HostileBodyTest {
    private final PromptKeyer keyer = new PromptKeyer();

    private PromptKeys key(ApiDialect dialect, byte[] body) {
        PromptKeys keys = keyer.key(dialect, body);
        assertThat(keys.noKeysReason()).isNotEqualTo(java.util.Optional.of(NoKeysReason.KEYER_FAULT));
        return keys;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void nesting100000Levels_parserLimit() {
        String deep = "{\"model\":\"m\",\"messages\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        for (ApiDialect dialect : ApiDialect.values()) {
            assertThat(key(dialect, ascii(deep)).noKeysReason()).contains(NoKeysReason.PARSER_LIMIT);
        }
    }

    @Test
    void depthAtTheLimitKeyed_oneDeeperParserLimit() {
        // Reliability B18: the root object is level 1, so 254 arrays inside messages' own array reach depth 256.
        String atLimit = "{\"model\":\"m\",\"tools\":" + "[".repeat(255) + "]".repeat(255)
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
        String deeper = atLimit.replace("[".repeat(255), "[".repeat(256)).replace("]".repeat(255), "]".repeat(256));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, ascii(atLimit)).noKeysReason())
                .isNotEqualTo(java.util.Optional.of(NoKeysReason.PARSER_LIMIT));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, ascii(deeper)).noKeysReason())
                .contains(NoKeysReason.PARSER_LIMIT);
    }

    @Test
    void escapedSlashAndLetter_keyLikeThePlainCharacters() {
        // Reliability B28: strings are keyed as a parser sees them.
        PromptKeys escaped = key(
                ApiDialect.CHAT_COMPLETIONS,
                ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\\u0041\\/b\"}]}"));
        PromptKeys plain = key(
                ApiDialect.CHAT_COMPLETIONS,
                ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"A/b\"}]}"));
        assertThat(escaped.keys()).isEqualTo(plain.keys());
    }

    @Test
    void loneSurrogatesAndQuestionMark_threeDifferentKeys() {
        // Reliability B27: a parser that re-encodes with getBytes(UTF_8) would key all three as "?".
        java.util.Set<BlockKeys> keys = new java.util.HashSet<>();
        for (String text : new String[] {"\\ud800", "\\udc00", "?"}) {
            keys.add(key(
                            ApiDialect.CHAT_COMPLETIONS,
                            ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}"))
                    .keys());
        }
        assertThat(keys).hasSize(3);
    }

    @Test
    void unclosedNesting100000Levels_parserLimit() {
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, ascii("{\"m\":" + "{\"a\":".repeat(100_000)))
                        .noKeysReason())
                .contains(NoKeysReason.PARSER_LIMIT);
    }

    @Test
    void megabyteNumbers_keyedOrRefusedWithoutFault() {
        String big = "9".repeat(1_000_000);
        String body = "{\"model\":\"m\",\"temperature\":" + big + ".5e" + big + ",\"tools\":[{\"n\":" + big
                + "}],\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
        // The tool list is over 16 KiB as sent, so the huge number inside it is digested, never converted.
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, ascii(body)).isKeyed()).isTrue();
        String asArguments = "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"type\":"
                + "\"function\",\"function\":{\"name\":\"f\",\"arguments\":{\"n\":-" + big + "e-" + big + "}}}]}]}";
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, ascii(asArguments)).isKeyed())
                .isTrue();
    }

    @Test
    void invalidUtf8_invalidJson() {
        byte[] body = ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"xx\"}]}");
        body[body.length - 6] = (byte) 0xC0;
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, body).noKeysReason()).contains(NoKeysReason.INVALID_JSON);
    }

    @Test
    void loneSurrogateEscapes_keyedAndDistinct() {
        PromptKeys high = key(
                ApiDialect.CHAT_COMPLETIONS,
                ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\\ud800b\"}]}"));
        PromptKeys low = key(
                ApiDialect.CHAT_COMPLETIONS,
                ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\\udc00b\"}]}"));
        PromptKeys pairCut = key(
                ApiDialect.CHAT_COMPLETIONS,
                ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\\ud83d\"}]}"));
        assertThat(high.isKeyed()).isTrue();
        assertThat(pairCut.isKeyed()).isTrue();
        assertThat(high.keys()).isNotEqualTo(low.keys());
    }

    @Test
    void duplicateKeysInsideMessages_lastWins() {
        PromptKeys duplicated = key(
                ApiDialect.CHAT_COMPLETIONS,
                ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\",\"content\":\"b\"}]}"));
        PromptKeys plain = key(
                ApiDialect.CHAT_COMPLETIONS,
                ascii("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"b\"}]}"));
        assertThat(duplicated.keys()).isEqualTo(plain.keys());
    }

    @Test
    void duplicateTopLevelModelOrSalt_noKeys() {
        String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"b\"}]";
        for (String body : new String[] {
            "{\"model\":\"x\"," + messages + ",\"model\":\"m\"}",
            "{\"model\":\"m\"," + messages + ",\"model\":\"m\"}",
            "{\"model\":null,\"model\":\"m\"," + messages + "}",
            "{\"model\":\"m\",\"cache_salt\":\"a\"," + messages + ",\"cache_salt\":\"b\"}",
            "{\"model\":\"m\",\"cache_salt\":\"a\",\"cache_salt\":\"a\"," + messages + "}"
        }) {
            for (ApiDialect dialect : ApiDialect.values()) {
                assertThat(key(dialect, ascii(body)).noKeysReason()).as(body).contains(NoKeysReason.DUPLICATE_MEMBER);
            }
        }
    }

    @Test
    void everyTruncationOfAValidBody_invalidJsonNeverFault() {
        byte[] body = ascii("{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"h\\u00e9\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"u\"},\"uuid\":\"i\"}]}]}");
        for (ApiDialect dialect : ApiDialect.values()) {
            for (int length = 0; length < body.length; length++) {
                assertThat(key(dialect, Arrays.copyOf(body, length)).noKeysReason())
                        .contains(NoKeysReason.INVALID_JSON);
            }
        }
    }

    @Test
    void wrongTypesEverywhere_noKeysAndNeverFault() {
        String[][] cases = {
            {"CHAT_COMPLETIONS", "{\"model\":\"m\",\"messages\":[1]}"},
            {"CHAT_COMPLETIONS", "{\"model\":\"m\",\"messages\":[{\"role\":1,\"content\":\"x\"}]}"},
            {"CHAT_COMPLETIONS", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":{}}]}"},
            {"CHAT_COMPLETIONS", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[7]}]}"},
            {"CHAT_COMPLETIONS", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":1}]}]}"},
            {
                "CHAT_COMPLETIONS",
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":1}]}]}"
            },
            {"CHAT_COMPLETIONS", "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":{}}]}"},
            {
                "CHAT_COMPLETIONS",
                "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"type\":\"function\"}]}]}"
            },
            {"CHAT_COMPLETIONS", "{\"model\":\"m\",\"tools\":{},\"messages\":[]}"},
            {
                "CHAT_COMPLETIONS",
                "{\"model\":\"m\",\"cache_salt\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"
            },
            {"RESPONSES", "{\"model\":\"m\",\"input\":[{\"type\":\"item_reference\"}]}"},
            {"RESPONSES", "{\"model\":\"m\",\"input\":5}"},
            {"RESPONSES", "{\"model\":\"m\",\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":5}]}"},
            {"MESSAGES", "{\"model\":\"m\",\"system\":5}"},
            {
                "MESSAGES",
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
                        + "\"content\":[{\"type\":\"tool_result\",\"content\":\"x\"}]}]}]}"
            },
            {"COMPLETIONS", "{\"model\":\"m\",\"prompt\":{}}"},
            {"COMPLETIONS", "{\"model\":\"m\",\"prompt\":[true]}"},
        };
        for (String[] c : cases) {
            assertThat(key(ApiDialect.valueOf(c[0]), ascii(c[1])).noKeysReason())
                    .as(c[1])
                    .isPresent();
            for (ApiDialect dialect : ApiDialect.values()) {
                key(dialect, ascii(c[1])); // asserts no fault
            }
        }
    }
}
