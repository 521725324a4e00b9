package grid.gateway.routing.keyer;

import static grid.gateway.routing.keyer.JsonText.arr;
import static grid.gateway.routing.keyer.JsonText.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The canonical stream of each API, stated byte for byte: the order tools, system, messages, and each API's rules. */
class DialectWalkersTest {
    private final PromptKeyer keyer = new PromptKeyer();

    private static String stream(ApiDialect dialect, Object body) {
        return KeyerProbe.shown(dialect, JsonText.compact(body));
    }

    /** An Anthropic body asking "Q" of model claude, with {@code key} set to {@code value}. */
    private static Map<String, Object> userQ(String key, Object value) {
        return obj("model", "claude", "messages", arr(obj("role", "user", "content", "Q")), key, value);
    }

    @Test
    void chat_streamOrder_toolsThenMessagesWithToolCallsAndResults() {
        Map<String, Object> body = obj(
                "messages",
                        arr(
                                obj("role", "system", "content", "S"),
                                obj("role", "user", "content", "U"),
                                obj(
                                        "role",
                                        "assistant",
                                        "content",
                                        null,
                                        "tool_calls",
                                        arr(obj(
                                                "id",
                                                "c1",
                                                "type",
                                                "function",
                                                "function",
                                                obj("name", "f", "arguments", "{\"x\":1}")))),
                                obj("role", "tool", "tool_call_id", "c1", "content", "R")),
                "model", "m",
                "tools", arr(obj("type", "function", "function", obj("name", "f"))));
        assertThat(stream(ApiDialect.CHAT_COMPLETIONS, body))
                .isEqualTo("<F5>{\"function\":{\"name\":\"f\"},\"type\":\"function\"}"
                        + "<F7>system<F8>S<F7>user<F8>U<F7>assistant<F8><F9>f<FC>{\"x\":1}<F7>tool<F8>R");
    }

    @Test
    void completions_stringPrompt_isTheWholePrompt() {
        assertThat(stream(ApiDialect.COMPLETIONS, obj("model", "m", "prompt", "Once upon", "suffix", "end")))
                .isEqualTo("<FD>Once upon");
    }

    @Test
    void completions_batchOfStrings_keyedByFirst() {
        assertThat(stream(ApiDialect.COMPLETIONS, obj("model", "m", "prompt", arr("first", "second"))))
                .isEqualTo("<FD>first");
    }

    @Test
    void messages_streamOrder_toolsSystemMessages() {
        Map<String, Object> body = obj(
                "model",
                "claude",
                "max_tokens",
                100,
                "messages",
                arr(
                        obj("role", "user", "content", "Q"),
                        obj(
                                "role",
                                "assistant",
                                "content",
                                arr(
                                        obj("type", "thinking", "thinking", "hmm", "signature", "sig"),
                                        obj("type", "redacted_thinking", "data", "xx"),
                                        obj("type", "text", "text", "A", "cache_control", obj("type", "ephemeral")),
                                        obj("type", "tool_use", "id", "t1", "name", "f", "input", obj("q", "v")))),
                        obj(
                                "role",
                                "user",
                                "content",
                                arr(obj("type", "tool_result", "tool_use_id", "t1", "content", "out")))),
                "system",
                "SYS",
                "tools",
                arr(obj("name", "f", "input_schema", obj("type", "object"))));
        assertThat(stream(ApiDialect.MESSAGES, body))
                .isEqualTo("<F5>{\"input_schema\":{\"type\":\"object\"},\"name\":\"f\"}<F7>system<F8>SYS"
                        + "<F7>user<F8>Q<F7>assistant<F8>A<F9>f<FC>{\"q\":\"v\"}<F7>user<F8><FA>out");
    }

    @Test
    void messages_billingHeaderSystemBlock_ignored() {
        Map<String, Object> withHeader = userQ(
                "system",
                arr(
                        obj("type", "text", "text", "x-anthropic-billing-header: cc_version=1.0; cch=93a1f"),
                        obj("type", "text", "text", "You are Claude Code.")));
        Map<String, Object> without = userQ("system", "You are Claude Code.");
        assertThat(keyer.key(ApiDialect.MESSAGES, JsonText.bytes(withHeader)).keys())
                .isEqualTo(
                        keyer.key(ApiDialect.MESSAGES, JsonText.bytes(without)).keys());
    }

    @Test
    void messages_onlyBillingHeaderSystem_keysLikeNoSystem() {
        Map<String, Object> onlyHeader =
                userQ("system", arr(obj("type", "text", "text", "x-anthropic-billing-header: cch=1")));
        Map<String, Object> none = obj("model", "claude", "messages", arr(obj("role", "user", "content", "Q")));
        assertThat(stream(ApiDialect.MESSAGES, onlyHeader)).isEqualTo(stream(ApiDialect.MESSAGES, none));
    }

    @Test
    void messages_billingHeaderAsSystemString_keyedAsText() {
        // vLLM drops system text *blocks* that start with the header; a system string is rendered whole.
        Map<String, Object> body = userQ("system", "x-anthropic-billing-header: cch=1; You are terse.");
        assertThat(stream(ApiDialect.MESSAGES, body))
                .isEqualTo("<F7>system<F8>x-anthropic-billing-header: cch=1; You are terse.<F7>user<F8>Q");
        Map<String, Object> otherHash = userQ("system", "x-anthropic-billing-header: cch=2; You are terse.");
        assertThat(keyer.key(ApiDialect.MESSAGES, JsonText.bytes(body)).keys())
                .isNotEqualTo(keyer.key(ApiDialect.MESSAGES, JsonText.bytes(otherHash))
                        .keys());
    }

    @Test
    void messages_systemRoleMessage_billingHeaderStringKept_blockDropped() {
        Map<String, Object> asString = obj(
                "model",
                "claude",
                "messages",
                arr(
                        obj("role", "system", "content", "x-anthropic-billing-header: a"),
                        obj("role", "user", "content", "Q")));
        assertThat(stream(ApiDialect.MESSAGES, asString))
                .isEqualTo("<F7>system<F8>x-anthropic-billing-header: a<F7>user<F8>Q");
        Map<String, Object> asBlocks = obj(
                "model",
                "claude",
                "messages",
                arr(
                        obj(
                                "role",
                                "system",
                                "content",
                                arr(
                                        obj("type", "text", "text", "x-anthropic-billing-header: a"),
                                        obj("type", "text", "text", "S"))),
                        obj("role", "user", "content", "Q")));
        assertThat(stream(ApiDialect.MESSAGES, asBlocks)).isEqualTo("<F7>system<F8>S<F7>user<F8>Q");
    }

    @Test
    void messages_toolCacheControlMoves_sameKeys() {
        Map<String, Object> a = userQ(
                "tools",
                arr(
                        obj("name", "f", "input_schema", obj(), "cache_control", obj("type", "ephemeral")),
                        obj("name", "g", "input_schema", obj())));
        Map<String, Object> b = userQ(
                "tools",
                arr(
                        obj("name", "f", "input_schema", obj()),
                        obj("name", "g", "input_schema", obj(), "cache_control", obj("type", "ephemeral"))));
        assertThat(stream(ApiDialect.MESSAGES, a)).isEqualTo(stream(ApiDialect.MESSAGES, b));
    }

    @Test
    void responses_streamOrder_toolsInstructionsInput() {
        Map<String, Object> body = obj(
                "input",
                arr(
                        obj("role", "user", "content", "Q"),
                        obj("type", "reasoning", "id", "rs_1", "summary", arr()),
                        obj("type", "function_call", "call_id", "c", "name", "f", "arguments", "{ \"b\":1 }"),
                        obj("type", "function_call_output", "call_id", "c", "output", "R"),
                        obj(
                                "type",
                                "message",
                                "role",
                                "assistant",
                                "id",
                                "msg_1",
                                "status",
                                "completed",
                                "content",
                                arr(obj("type", "output_text", "text", "A", "annotations", arr()))),
                        obj("type", "item_reference", "id", "msg_0")),
                "instructions",
                "I",
                "model",
                "m",
                "tools",
                arr(obj("type", "function", "name", "f", "parameters", obj())));
        String shown = stream(ApiDialect.RESPONSES, body);
        assertThat(shown)
                .startsWith("<F5>{\"name\":\"f\",\"parameters\":{},\"type\":\"function\"}<F7>system<F8>I"
                        + "<F7>user<F8>Q<F9>f<FC>{\"b\":1}<FA>R<F7>assistant<F8>A<FE>");
        // REFERENCE + an 8-byte digest of the id ends the stream.
        byte[] raw = KeyerProbe.canonicalStream(ApiDialect.RESPONSES, JsonText.bytes(body));
        assertThat(raw[raw.length - 9] & 0xFF).isEqualTo(Segment.REFERENCE);
    }

    @Test
    void responses_inputString_keysLikeChatUserMessage() {
        PromptKeys responses = keyer.key(ApiDialect.RESPONSES, JsonText.bytes(obj("model", "m", "input", "hello")));
        PromptKeys chat = keyer.key(
                ApiDialect.CHAT_COMPLETIONS,
                JsonText.bytes(obj("model", "m", "messages", arr(obj("role", "user", "content", "hello")))));
        assertThat(responses.keys()).isEqualTo(chat.keys());
    }

    @Test
    void responses_reasoningItems_ignored() {
        Map<String, Object> plain = obj("model", "m", "input", arr(obj("role", "user", "content", "Q")));
        Map<String, Object> reasoned = obj(
                "model",
                "m",
                "reasoning",
                obj("effort", "high"),
                "input",
                arr(
                        obj(
                                "type",
                                "reasoning",
                                "id",
                                "rs_1",
                                "summary",
                                arr(obj("type", "summary_text", "text", "t")),
                                "encrypted_content",
                                "zzz"),
                        obj("role", "user", "content", "Q")));
        assertThat(keyer.key(ApiDialect.RESPONSES, JsonText.bytes(reasoned)).keys())
                .isEqualTo(
                        keyer.key(ApiDialect.RESPONSES, JsonText.bytes(plain)).keys());
    }
}
