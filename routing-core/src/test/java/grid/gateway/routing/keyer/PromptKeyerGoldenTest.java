package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Known answers: the block keys of a few prompts per API. A change to any of them changes every key a replica
 * computes, so it must be deliberate (keys live only in memory, so a change costs one warm-up, not data).
 */
class PromptKeyerGoldenTest {
    private final PromptKeyer keyer = new PromptKeyer();

    private String keysOf(ApiDialect dialect, String body) {
        PromptKeys keys = keyer.key(dialect, body.getBytes(StandardCharsets.UTF_8));
        return Arrays.stream(keys.keys().toArray())
                .mapToObj(k -> String.format("%016x", k))
                .collect(Collectors.joining(" "));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "CHAT_COMPLETIONS | {\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}]} | dcf9fab5c0d99cff",
                "CHAT_COMPLETIONS | {\"model\":\"demo-model\",\"cache_salt\":\"tenant-a\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}]} | 3cc3aa81925c5d82",
                "CHAT_COMPLETIONS | {\"model\":\"demo-model\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"weather\",\"parameters\":{\"type\":\"object\"}}}],\"messages\":[{\"role\":\"system\",\"content\":\"You are a weather bot. Answer in one line, with the temperature in Celsius and a one-word sky condition, and never ask a question back.\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Paris today?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.test/sky.png\"},\"uuid\":\"sky-1\"}]},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"18C sunny\"}]} | 88132130bb471384 a329416c3da57871",
                "COMPLETIONS | {\"model\":\"demo-model\",\"prompt\":\"Once upon a time\"} | 6d4e0349ceb16c0d",
                "MESSAGES | {\"model\":\"claude\",\"max_tokens\":64,\"system\":[{\"type\":\"text\",\"text\":\"x-anthropic-billing-header: cch=1\"},{\"type\":\"text\",\"text\":\"Be terse.\"}],\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"https://example.test/a.png\"}},{\"type\":\"text\",\"text\":\"What is this?\"}]}]} | f80be58f45137fa4",
                "RESPONSES | {\"model\":\"demo-model\",\"instructions\":\"Be terse.\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Hi\"}]},{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"{}\"},{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"ok\"}]} | 818b4306158fd796",
            })
    void key_knownAnswers(ApiDialect dialect, String body, String expected) {
        assertThat(keysOf(dialect, body)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} blocks")
    @CsvSource({"3, 2830a202ede92e5e 2241431922112521 b3a4812abd543934"})
    void key_longPrompt_knownChain(int blocks, String expected) {
        // 6 framing bytes + text: exactly `blocks` full blocks.
        String text = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(40).substring(0, blocks * 256 - 6);
        String body = "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
        assertThat(keysOf(ApiDialect.CHAT_COMPLETIONS, body)).isEqualTo(expected);
    }
}
