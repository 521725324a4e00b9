package grid.gateway.routing.keyer;

import static grid.gateway.routing.keyer.JsonText.arr;
import static grid.gateway.routing.keyer.JsonText.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The seed's "What it keys on", sentence by sentence, for all four APIs. */
class PromptKeyerTest {
    private final PromptKeyer keyer = new PromptKeyer();

    private PromptKeys key(ApiDialect dialect, Object body) {
        return keyer.key(dialect, JsonText.bytes(body));
    }

    private PromptKeys key(ApiDialect dialect, String body) {
        return keyer.key(dialect, body.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, Object> chat(Object... messages) {
        return obj("model", "demo-model", "messages", arr(messages));
    }

    private static Map<String, Object> user(Object content) {
        return obj("role", "user", "content", content);
    }

    // --- It ignores reasoning, generation parameters, and field order.

    @Test
    void chat_generationParametersChange_sameKeys() {
        Map<String, Object> plain = chat(user("hello there"));
        Map<String, Object> tuned = chat(user("hello there"));
        tuned.putAll(obj(
                "temperature",
                0.2,
                "max_tokens",
                99,
                "stream",
                true,
                "top_p",
                0.9,
                "stop",
                arr("x"),
                "n",
                2,
                "seed",
                7,
                "stream_options",
                obj("include_usage", true),
                "logit_bias",
                obj("42", -100)));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, tuned).keys())
                .isEqualTo(key(ApiDialect.CHAT_COMPLETIONS, plain).keys());
    }

    @Test
    void chat_reasoningFieldsChange_sameKeys() {
        Map<String, Object> plain = chat(user("q"), obj("role", "assistant", "content", "a"));
        Map<String, Object> reasoned = chat(
                user("q"), obj("role", "assistant", "content", "a", "reasoning_content", "hmm", "reasoning", "so"));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, reasoned).keys())
                .isEqualTo(key(ApiDialect.CHAT_COMPLETIONS, plain).keys());
    }

    @Test
    void chat_fieldOrderWhitespaceAndEscapesChange_sameKeys() {
        Map<String, Object> body = chat(
                obj("role", "system", "content", "Be brief."),
                user(arr(obj("type", "text", "text", "Ünïcode and ASCII"))));
        byte[] reference = JsonText.bytes(body);
        for (long seed = 0; seed < 20; seed++) {
            String spelled = JsonText.spelled(body, seed, true, true, true);
            assertThat(key(ApiDialect.CHAT_COMPLETIONS, spelled).keys())
                    .as(spelled)
                    .isEqualTo(keyer.key(ApiDialect.CHAT_COMPLETIONS, reference).keys());
        }
    }

    @Test
    void chat_unicodeEscapeOfLetter_sameKeys() {
        String plain = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"ABC\"}]}";
        String escaped = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\\u0041B\\u0043\"}]}";
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, escaped).keys())
                .isEqualTo(key(ApiDialect.CHAT_COMPLETIONS, plain).keys());
    }

    @Test
    void chat_textPartsOrString_sameKeys() {
        PromptKeys string = key(ApiDialect.CHAT_COMPLETIONS, chat(user("hello world")));
        PromptKeys parts = key(
                ApiDialect.CHAT_COMPLETIONS,
                chat(user(arr(obj("type", "text", "text", "hello "), obj("type", "text", "text", "world")))));
        assertThat(parts.keys()).isEqualTo(string.keys());
    }

    // --- Each message's role and text; a cache_salt gives its own keys, and so does each model.

    @Test
    void chat_roleChanges_differentKeys() {
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(obj("role", "system", "content", "hi")))
                        .keys())
                .isNotEqualTo(key(ApiDialect.CHAT_COMPLETIONS, chat(user("hi"))).keys());
    }

    @Test
    void chat_textChanges_differentKeys() {
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(user("hi"))).keys())
                .isNotEqualTo(key(ApiDialect.CHAT_COMPLETIONS, chat(user("ho"))).keys());
    }

    @Test
    void chat_roleTextBoundaryMoves_differentKeys() {
        // "user"+"x" and "use"+"rx" are the same characters split differently: the markers keep them apart.
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(obj("role", "use", "content", "rx")))
                        .keys())
                .isNotEqualTo(key(ApiDialect.CHAT_COMPLETIONS, chat(obj("role", "user", "content", "x")))
                        .keys());
    }

    @Test
    void chat_modelChanges_differentKeys() {
        Map<String, Object> other = chat(user("hi"));
        other.put("model", "other-model");
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, other).keys())
                .isNotEqualTo(key(ApiDialect.CHAT_COMPLETIONS, chat(user("hi"))).keys());
    }

    @Test
    void chat_cacheSaltGiven_ownKeysAndSaltReported() {
        Map<String, Object> salted = chat(user("hi"));
        salted.put("cache_salt", "tenant-a");
        Map<String, Object> otherSalt = chat(user("hi"));
        otherSalt.put("cache_salt", "tenant-b");
        PromptKeys plain = key(ApiDialect.CHAT_COMPLETIONS, chat(user("hi")));
        PromptKeys a = key(ApiDialect.CHAT_COMPLETIONS, salted);
        assertThat(a.cacheSalt()).contains("tenant-a");
        assertThat(a.keys()).isNotEqualTo(plain.keys());
        assertThat(a.keys())
                .isNotEqualTo(key(ApiDialect.CHAT_COMPLETIONS, otherSalt).keys());
    }

    @Test
    void chat_longPromptUnderOtherSalt_sharesNoKey() {
        Map<String, Object> a = chat(user("x".repeat(5000)));
        Map<String, Object> b = chat(user("x".repeat(5000)));
        b.put("cache_salt", "s");
        long[] first = key(ApiDialect.CHAT_COMPLETIONS, a).keys().toArray();
        long[] second = key(ApiDialect.CHAT_COMPLETIONS, b).keys().toArray();
        assertThat(first).hasSize(20).doesNotContain(second);
    }

    // --- Tool definitions with their keys sorted; tool call names and arguments.

    @Test
    void chat_toolDefinitionKeyOrderChanges_sameKeys() {
        Map<String, Object> a = chat(user("hi"));
        a.put("tools", arr(obj("type", "function", "function", obj("name", "f", "parameters", obj("a", 1, "b", 2)))));
        Map<String, Object> b = chat(user("hi"));
        b.put("tools", arr(obj("function", obj("parameters", obj("b", 2, "a", 1), "name", "f"), "type", "function")));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, b).keys())
                .isEqualTo(key(ApiDialect.CHAT_COMPLETIONS, a).keys());
    }

    @Test
    void chat_toolChanges_differentKeys() {
        Map<String, Object> a = chat(user("hi"));
        a.put("tools", arr(obj("type", "function", "function", obj("name", "f"))));
        Map<String, Object> b = chat(user("hi"));
        b.put("tools", arr(obj("type", "function", "function", obj("name", "g"))));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, b).keys())
                .isNotEqualTo(key(ApiDialect.CHAT_COMPLETIONS, a).keys());
    }

    @Test
    void chat_toolCallArgumentsStringReformatted_sameKeys() {
        PromptKeys compact = key(ApiDialect.CHAT_COMPLETIONS, chat(toolCall("get", "{\"city\":\"Paris\",\"n\":1}")));
        PromptKeys spaced =
                key(ApiDialect.CHAT_COMPLETIONS, chat(toolCall("get", "{ \"n\": 1.0,\n \"city\": \"Par\\u0069s\" }")));
        assertThat(spaced.keys()).isEqualTo(compact.keys());
    }

    @Test
    void chat_toolCallNameOrArgumentsChange_differentKeys() {
        PromptKeys base = key(ApiDialect.CHAT_COMPLETIONS, chat(toolCall("get", "{\"city\":\"Paris\"}")));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(toolCall("put", "{\"city\":\"Paris\"}")))
                        .keys())
                .isNotEqualTo(base.keys());
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(toolCall("get", "{\"city\":\"Rome\"}")))
                        .keys())
                .isNotEqualTo(base.keys());
    }

    @Test
    void chat_toolCallArgumentsNotJson_keyedAsText() {
        PromptKeys a = key(ApiDialect.CHAT_COMPLETIONS, chat(toolCall("get", "{not json")));
        PromptKeys b = key(ApiDialect.CHAT_COMPLETIONS, chat(toolCall("get", "{not json!")));
        assertThat(a.isKeyed()).isTrue();
        assertThat(a.keys()).isNotEqualTo(b.keys());
    }

    @Test
    void anthropicToolUseInputObject_keysLikeChatArgumentsString() {
        // Both canonicalise the same arguments; only the message framing around them differs.
        String chatStream = KeyerProbe.show(KeyerProbe.canonicalStream(
                ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(chat(toolCall("f", "{\"b\":2,\"a\":1}")))));
        String anthropicStream = KeyerProbe.show(KeyerProbe.canonicalStream(
                ApiDialect.MESSAGES,
                JsonText.bytes(obj(
                        "model",
                        "demo-model",
                        "messages",
                        arr(obj(
                                "role",
                                "assistant",
                                "content",
                                arr(obj(
                                        "type",
                                        "tool_use",
                                        "id",
                                        "t1",
                                        "name",
                                        "f",
                                        "input",
                                        obj("a", 1, "b", 2)))))))));
        assertThat(chatStream).endsWith("<F9>f<FC>{\"a\":1,\"b\":2}");
        assertThat(anthropicStream).endsWith("<F9>f<FC>{\"a\":1,\"b\":2}");
    }

    // --- Each image, audio, video, or file part counts as one fixed digest, by vLLM's uuid when it has one.

    @Test
    void chat_mediaPartsSameUuidDifferentData_sameKeys() {
        PromptKeys a = key(
                ApiDialect.CHAT_COMPLETIONS,
                chat(user(arr(obj("type", "image_url", "image_url", obj("url", "https://a/1.png"), "uuid", "sku-1")))));
        PromptKeys b = key(
                ApiDialect.CHAT_COMPLETIONS,
                chat(user(arr(obj(
                        "type",
                        "image_url",
                        "image_url",
                        obj("url", "data:image/png;base64,AAAA"),
                        "uuid",
                        "sku-1")))));
        PromptKeys noPayload = key(
                ApiDialect.CHAT_COMPLETIONS,
                chat(user(arr(obj("type", "image_url", "image_url", null, "uuid", "sku-1")))));
        assertThat(b.keys()).isEqualTo(a.keys());
        assertThat(noPayload.keys()).isEqualTo(a.keys());
    }

    @Test
    void chat_mediaPartsDifferentDataNoUuid_differentKeys() {
        PromptKeys a = key(
                ApiDialect.CHAT_COMPLETIONS,
                chat(user(arr(obj("type", "image_url", "image_url", obj("url", "https://a/1.png"))))));
        PromptKeys b = key(
                ApiDialect.CHAT_COMPLETIONS,
                chat(user(arr(obj("type", "image_url", "image_url", obj("url", "https://a/2.png"))))));
        assertThat(b.keys()).isNotEqualTo(a.keys());
    }

    @Test
    void mediaPart_isOneFixedSizeDigestWhateverItsSize() {
        for (int size : new int[] {1, 1000, 300_000}) {
            String stream = KeyerProbe.show(KeyerProbe.canonicalStream(
                    ApiDialect.CHAT_COMPLETIONS,
                    JsonText.bytes(chat(user(arr(obj(
                            "type", "input_audio", "input_audio", obj("data", "A".repeat(size), "format", "wav"))))))));
            // MESSAGE "user" CONTENT MEDIA + 8 digest bytes, each shown as one character or <XX>.
            assertThat(stream).startsWith("<F7>user<F8><FB>");
            assertThat(KeyerProbe.canonicalStream(
                            ApiDialect.CHAT_COMPLETIONS,
                            JsonText.bytes(chat(user(
                                    arr(obj("type", "input_audio", "input_audio", obj("data", "A".repeat(size)))))))))
                    .hasSize(1 + 4 + 1 + 1 + 8);
        }
    }

    @Test
    void mediaPartsOfEveryApi_keyed() {
        assertThat(key(
                                ApiDialect.CHAT_COMPLETIONS,
                                chat(user(arr(
                                        obj("type", "video_url", "video_url", obj("url", "v")),
                                        obj("type", "audio_url", "audio_url", obj("url", "a")),
                                        obj("type", "file", "file", obj("file_id", "file-1")),
                                        obj("image_url", "https://simple/part.png")))))
                        .isKeyed())
                .isTrue();
        assertThat(key(
                                ApiDialect.RESPONSES,
                                obj(
                                        "model",
                                        "m",
                                        "input",
                                        arr(obj(
                                                "role",
                                                "user",
                                                "content",
                                                arr(
                                                        obj("type", "input_image", "image_url", "https://x"),
                                                        obj("type", "input_file", "file_id", "file-2"))))))
                        .isKeyed())
                .isTrue();
        assertThat(key(
                                ApiDialect.MESSAGES,
                                obj(
                                        "model",
                                        "m",
                                        "max_tokens",
                                        5,
                                        "messages",
                                        arr(obj(
                                                "role",
                                                "user",
                                                "content",
                                                arr(
                                                        obj(
                                                                "type",
                                                                "image",
                                                                "source",
                                                                obj(
                                                                        "type",
                                                                        "base64",
                                                                        "media_type",
                                                                        "image/png",
                                                                        "data",
                                                                        "iVBOR")),
                                                        obj(
                                                                "type",
                                                                "document",
                                                                "source",
                                                                obj("type", "url", "url", "https://d.pdf")))))))
                        .isKeyed())
                .isTrue();
    }

    // --- A body it cannot read, token arrays, or a part type it does not know gets no keys.

    @Test
    void noKeys_eachReason() {
        assertThat(reason(ApiDialect.CHAT_COMPLETIONS, "{\"model\":\"m\",\"messages\":["))
                .isEqualTo(NoKeysReason.INVALID_JSON);
        assertThat(reason(ApiDialect.CHAT_COMPLETIONS, "[{\"model\":\"m\"}]")).isEqualTo(NoKeysReason.NOT_AN_OBJECT);
        assertThat(reason(ApiDialect.CHAT_COMPLETIONS, "{\"messages\":[]}")).isEqualTo(NoKeysReason.MISSING_MODEL);
        assertThat(reason(ApiDialect.CHAT_COMPLETIONS, "{\"model\":7,\"messages\":[]}"))
                .isEqualTo(NoKeysReason.MISSING_MODEL);
        assertThat(reason(ApiDialect.COMPLETIONS, "{\"model\":\"m\",\"prompt\":[1,2,3]}"))
                .isEqualTo(NoKeysReason.TOKEN_PROMPT);
        assertThat(reason(ApiDialect.COMPLETIONS, "{\"model\":\"m\",\"prompt\":[[1,2],[3]]}"))
                .isEqualTo(NoKeysReason.TOKEN_PROMPT);
        assertThat(reason(ApiDialect.COMPLETIONS, "{\"model\":\"m\",\"prompt_embeds\":\"AAAA\"}"))
                .isEqualTo(NoKeysReason.TOKEN_PROMPT);
        assertThat(reason(
                        ApiDialect.CHAT_COMPLETIONS,
                        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"hologram\"}]}]}"))
                .isEqualTo(NoKeysReason.UNKNOWN_PART_TYPE);
        assertThat(reason(ApiDialect.RESPONSES, "{\"model\":\"m\",\"input\":[{\"type\":\"computer_call\"}]}"))
                .isEqualTo(NoKeysReason.UNKNOWN_PART_TYPE);
        assertThat(reason(ApiDialect.CHAT_COMPLETIONS, "{\"model\":\"m\",\"messages\":7}"))
                .isEqualTo(NoKeysReason.UNEXPECTED_SHAPE);
        assertThat(reason(ApiDialect.CHAT_COMPLETIONS, "{\"model\":\"m\",\"messages\":[]}"))
                .isEqualTo(NoKeysReason.EMPTY_PROMPT);
        assertThat(reason(
                        ApiDialect.CHAT_COMPLETIONS,
                        "{\"model\":\"m\",\"x\":" + "[".repeat(300) + "]".repeat(300) + "}"))
                .isEqualTo(NoKeysReason.PARSER_LIMIT);
    }

    @Test
    void noKeys_modelStillReportedForRouting() {
        PromptKeys keys = key(ApiDialect.COMPLETIONS, "{\"model\":\"demo-model\",\"prompt\":[1,2]}");
        assertThat(keys.model()).contains("demo-model");
        assertThat(keys.isKeyed()).isFalse();
    }

    // --- Blocks of 256 bytes, at most 512 keys; it stops once it has every key.

    @Test
    void chat_tenThousandMessages_exactly512Keys() {
        Object[] messages = new Object[10_000];
        for (int i = 0; i < messages.length; i++) {
            messages[i] = user("message number " + i + " with some more text to fill the block");
        }
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(messages)).keys().size())
                .isEqualTo(512);
    }

    @Test
    void chat_unknownPartAfter512Keys_stillKeyedBecauseReadingStopped() {
        Object[] messages = new Object[3_000];
        for (int i = 0; i < messages.length - 1; i++) {
            messages[i] = user("x".repeat(100));
        }
        messages[messages.length - 1] = user(arr(obj("type", "hologram")));
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(messages)).keys().size())
                .isEqualTo(512);
    }

    @Test
    void promptBlocks_keyedToItsEnd_isTheKeyCount() {
        PromptKeys keys = key(ApiDialect.CHAT_COMPLETIONS, chat(user("z".repeat(100_000))));
        assertThat(keys.keys().size()).isEqualTo(391);
        assertThat(keys.keys().promptBlocks()).isEqualTo(391);
    }

    @Test
    void promptBlocks_keyingStoppedAt512_isEstimatedFromTheBodysLength() {
        // 400,000 text bytes: about 1,563 blocks of 256 bytes, of which the keyer keys the first 512.
        byte[] body = JsonText.bytes(chat(user("z".repeat(400_000))));
        PromptKeys keys = keyer.key(ApiDialect.CHAT_COMPLETIONS, body);
        assertThat(keys.keys().size()).isEqualTo(512);
        assertThat(keys.keys().promptBlocks())
                .isEqualTo((body.length + 255) / 256)
                .isBetween(1_563, 1_564);
        assertThat(keys.keys())
                .as("the estimate is no part of the keys' identity")
                .isEqualTo(key(ApiDialect.CHAT_COMPLETIONS, chat(user("z".repeat(200_000))))
                        .keys());
    }

    @Test
    void chat_finalPartialBlock_counts() {
        // MESSAGE "user" CONTENT = 6 bytes, plus 250 text bytes = one full block; one more byte = a second block.
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(user("y".repeat(250))))
                        .keys()
                        .size())
                .isEqualTo(1);
        assertThat(key(ApiDialect.CHAT_COMPLETIONS, chat(user("y".repeat(251))))
                        .keys()
                        .size())
                .isEqualTo(2);
    }

    @Test
    void chat_sharedPrefix_sharesLeadingKeys() {
        long[] a = key(
                        ApiDialect.CHAT_COMPLETIONS,
                        chat(user("z".repeat(1000)), obj("role", "assistant", "content", "A")))
                .keys()
                .toArray();
        long[] b = key(
                        ApiDialect.CHAT_COMPLETIONS,
                        chat(user("z".repeat(1000)), obj("role", "assistant", "content", "B")))
                .keys()
                .toArray();
        assertThat(a).hasSameSizeAs(b);
        assertThat(java.util.Arrays.copyOf(a, a.length - 1)).isEqualTo(java.util.Arrays.copyOf(b, b.length - 1));
        assertThat(a[a.length - 1]).isNotEqualTo(b[b.length - 1]);
    }

    private NoKeysReason reason(ApiDialect dialect, String body) {
        return key(dialect, body).noKeysReason().orElseThrow();
    }

    static Map<String, Object> toolCall(String name, String arguments) {
        return obj(
                "role",
                "assistant",
                "content",
                null,
                "tool_calls",
                arr(obj("id", "call_1", "type", "function", "function", obj("name", name, "arguments", arguments))));
    }
}
