package grid.gateway.routing.keyer;

import static grid.gateway.routing.keyer.JsonText.arr;
import static grid.gateway.routing.keyer.JsonText.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * "At most 512 keys; once it has 512 the keyer stops reading" (docs/design.md §4): whatever follows the 512th key,
 * in the element it ended in, in a later member of the same message, or in a later root member, costs nothing; and
 * before the 512th key exists (511 full blocks and a partial one) the body is still read.
 */
class PromptKeyerStopsAt512Test {
    /** The canonical stream of one Chat user message is MESSAGE "user" CONTENT (6 bytes) and its text. */
    private static final int USER_FRAME = 6;
    /** Text that makes one user message's stream exactly 512 full blocks. */
    private static final String EXACTLY_512_BLOCKS = "x".repeat(512 * 256 - USER_FRAME);

    private final PromptKeyer keyer = new PromptKeyer();

    private PromptKeys key(ApiDialect dialect, String body) {
        return keyer.key(dialect, body.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, Object> user(Object content) {
        return obj("role", "user", "content", content);
    }

    @Test
    void chat_messageEndsAtThe512thKey_itsMalformedToolCallsNotRead() {
        String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + EXACTLY_512_BLOCKS
                + "\",\"tool_calls\":7}]}";
        PromptKeys keys = key(ApiDialect.CHAT_COMPLETIONS, body);
        assertThat(keys.noKeysReason()).isEmpty();
        assertThat(keys.keys().size()).isEqualTo(512);
        assertThat(keys.keys())
                .isEqualTo(keyer.key(
                                ApiDialect.CHAT_COMPLETIONS,
                                JsonText.bytes(obj("model", "m", "messages", arr(user(EXACTLY_512_BLOCKS)))))
                        .keys());
    }

    @Test
    void chat_512thKeyInsideAText_restOfTheMessageAndBodyNotRead() {
        String longer = EXACTLY_512_BLOCKS + "y".repeat(1000);
        String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\""
                + longer + "\"},{\"type\":\"hologram\"}],\"tool_calls\":{}},{\"role\":7}]}";
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, body).keys().size()).isEqualTo(512);
    }

    @Test
    void responses_instructionsEndAtThe512thKey_malformedInputNotRead() {
        // MESSAGE "system" CONTENT is 8 bytes.
        String instructions = "x".repeat(512 * 256 - 8);
        PromptKeys keys =
                key(ApiDialect.RESPONSES, "{\"model\":\"m\",\"input\":7,\"instructions\":\"" + instructions + "\"}");
        assertThat(keys.noKeysReason()).isEmpty();
        assertThat(keys.keys().size()).isEqualTo(512);
    }

    @Test
    void messages_systemEndsAtThe512thKey_malformedMessagesNotRead() {
        String system = "x".repeat(512 * 256 - 8);
        PromptKeys keys = key(ApiDialect.MESSAGES, "{\"model\":\"c\",\"messages\":7,\"system\":\"" + system + "\"}");
        assertThat(keys.noKeysReason()).isEmpty();
        assertThat(keys.keys().size()).isEqualTo(512);
        PromptKeys unknownBlock = key(
                ApiDialect.MESSAGES,
                "{\"model\":\"c\",\"system\":\"" + system
                        + "\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"hologram\"}]}]}");
        assertThat(unknownBlock.keys().size()).isEqualTo(512);
    }

    @Test
    void chat_511BlocksAndAPartialOne_theBodyAfterItIsStillRead() {
        // 511 full blocks and 100 bytes: the next message's frame makes 106, then its unknown part is read.
        String text = "x".repeat(511 * 256 + 100 - USER_FRAME);
        Map<String, Object> unknownAfter =
                obj("model", "m", "messages", arr(user(text), user(arr(obj("type", "hologram")))));
        assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(unknownAfter))
                        .noKeysReason())
                .contains(NoKeysReason.UNKNOWN_PART_TYPE);
        Map<String, Object> endsThere = obj("model", "m", "messages", arr(user(text)));
        assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(endsThere))
                        .keys()
                        .size())
                .as("a final partial block is the 512th key")
                .isEqualTo(512);
    }

    @Test
    void chat_theNextMessagesFrameCompletesThe512thBlock_itsUnknownPartNotRead() {
        // 511 full blocks and 255 bytes: the next message's MESSAGE marker completes the 512th block.
        String text = "x".repeat(511 * 256 + 255 - USER_FRAME);
        Map<String, Object> body = obj("model", "m", "messages", arr(user(text), user(arr(obj("type", "hologram")))));
        assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(body))
                        .keys()
                        .size())
                .isEqualTo(512);
    }
}
