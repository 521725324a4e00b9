package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CachedTokensTest {

    private static OptionalLong json(String text) {
        return CachedTokens.inJson(text.getBytes(StandardCharsets.UTF_8));
    }

    private static OptionalLong stream(String text) {
        return CachedTokens.inEventStream(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void inJson_chatCompletionWithPromptTokensDetails_cachedTokens() {
        String body = """
                {"id":"chatcmpl-9f2c","object":"chat.completion","created":1732950000,"model":"demo-model",
                 "choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I help?",
                 "tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],
                 "usage":{"prompt_tokens":2100,"total_tokens":2110,"completion_tokens":10,
                 "prompt_tokens_details":{"cached_tokens":2048}},"prompt_logprobs":null,"kv_transfer_params":null}
                """;

        assertThat(json(body)).hasValue(2048);
    }

    @Test
    void inJson_chatCompletionWithoutDetails_empty() {
        // vLLM without --enable-prompt-tokens-details writes null details.
        String body = """
                {"id":"chatcmpl-1","object":"chat.completion","model":"demo-model","choices":[],
                 "usage":{"prompt_tokens":2100,"total_tokens":2110,"completion_tokens":10,"prompt_tokens_details":null}}
                """;

        assertThat(json(body)).isEmpty();
    }

    @Test
    void inJson_completionsBody_cachedTokens() {
        String body = """
                {"id":"cmpl-7","object":"text_completion","created":1732950000,"model":"demo-model",
                 "choices":[{"index":0,"text":" the quick brown fox","logprobs":null,"finish_reason":"length"}],
                 "usage":{"prompt_tokens":300,"total_tokens":316,"completion_tokens":16,
                 "prompt_tokens_details":{"cached_tokens":256}}}
                """;

        assertThat(json(body)).hasValue(256);
    }

    @Test
    void inJson_responsesBody_inputTokensDetails() {
        String body = """
                {"id":"resp_67ccd2bed1ec8190","object":"response","created_at":1741476542,"status":"completed",
                 "model":"demo-model","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant",
                 "content":[{"type":"output_text","text":"Hi there","annotations":[]}]}],
                 "previous_response_id":null,"reasoning":{"effort":null,"summary":null},
                 "usage":{"input_tokens":1500,"input_tokens_details":{"cached_tokens":1024},"output_tokens":5,
                 "output_tokens_details":{"reasoning_tokens":0},"total_tokens":1505}}
                """;

        assertThat(json(body)).hasValue(1024);
    }

    @Test
    void inJson_anthropicMessage_cacheReadInputTokens() {
        String body = """
                {"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"demo-model",
                 "content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","stop_sequence":null,
                 "usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":4096,
                 "output_tokens":6}}
                """;

        assertThat(json(body)).hasValue(4096);
    }

    @Test
    void inJson_zeroCachedTokens_reportedAsZero() {
        assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":0}}}"))
                .hasValue(0);
    }

    @Test
    void inEventStream_chatStreamFinalUsageChunk_cachedTokens() {
        String sse = """
                data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"demo-model","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

                data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"demo-model","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":"stop"}],"usage":null}

                data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"demo-model","choices":[],"usage":{"prompt_tokens":2100,"total_tokens":2102,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1536}}}

                data: [DONE]

                """;

        assertThat(stream(sse)).hasValue(1536);
    }

    @Test
    void inEventStream_continuousUsageStats_lastChunkWins() {
        String sse = "data: {\"choices\":[],\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":0}}}\r\n\r\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":512}}}\r\n\r\n"
                + "data: [DONE]\r\n\r\n";

        assertThat(stream(sse)).hasValue(512);
    }

    @Test
    void inEventStream_responsesStream_responseCompletedUsage() {
        String sse = """
                event: response.created
                data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}}

                event: response.output_text.delta
                data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}

                event: response.completed
                data: {"type":"response.completed","sequence_number":7,"response":{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}],"usage":{"input_tokens":1500,"input_tokens_details":{"cached_tokens":1280},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":1501}}}

                """;

        assertThat(stream(sse)).hasValue(1280);
    }

    @Test
    void inEventStream_anthropicStream_messageStartUsage() {
        String sse = """
                event: message_start
                data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"demo-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":3072,"output_tokens":1}}}

                event: content_block_start
                data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

                event: content_block_delta
                data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

                event: content_block_stop
                data: {"type":"content_block_stop","index":0}

                event: message_delta
                data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}

                event: message_stop
                data: {"type":"message_stop"}

                """;

        assertThat(stream(sse)).hasValue(3072);
    }

    @Test
    void inEventStream_anthropicMessageDeltaRepeatsUsage_deltaWins() {
        String sse = "event: message_start\n"
                + "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"cache_read_input_tokens\":100}}}\n\n"
                + "event: message_delta\n"
                + "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":3,\"cache_read_input_tokens\":128}}\n\n";

        assertThat(stream(sse)).hasValue(128);
    }

    @Test
    void inEventStream_dataSplitOverLinesAndNoFinalBlankLine_joinedAndCounted() {
        String sse = "data: {\"usage\":\r\ndata: {\"cache_read_input_tokens\":\rdata: 77}}";

        assertThat(stream(sse)).hasValue(77);
    }

    @Test
    void inEventStream_noUsageAnywhere_empty() {
        assertThat(stream("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n"))
                .isEmpty();
        assertThat(stream("")).isEmpty();
        assertThat(stream(": keep-alive\n\n")).isEmpty();
    }

    @Test
    void inJson_sameNamesOffThePaths_empty() {
        assertThat(json("{\"choices\":[{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5}}}]}"))
                .isEmpty();
        assertThat(json("{\"metadata\":{\"usage\":{\"cache_read_input_tokens\":5}}}"))
                .isEmpty();
        assertThat(json("{\"cached_tokens\":5,\"usage\":{\"cached_tokens\":5}}"))
                .isEmpty();
        // Inside a string (tool arguments that mention the field), not a field.
        assertThat(json("{\"choices\":[{\"message\":{\"content\":\"{\\\"usage\\\":{\\\"cached_tokens\\\":1}}\"}}]}"))
                .isEmpty();
    }

    @Test
    void inJson_valueNotANonNegativeLong_empty() {
        assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":\"2048\"}}}"))
                .isEmpty();
        assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":-1}}}"))
                .isEmpty();
        assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":1.5}}}"))
                .isEmpty();
        assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":1e30}}}"))
                .isEmpty();
        assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":null}}}"))
                .isEmpty();
        assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":64.0}}}"))
                .hasValue(64);
    }

    @Test
    void inJson_hostileInput_emptyNeverThrows() {
        String[] hostile = {
            "",
            "[DONE]",
            "cached_tokens",
            "[{\"usage\":{\"cache_read_input_tokens\":1}}]",
            "{\"usage\":{\"cache_read_input_tokens\":1}",
            "{\"usage\":{\"cache_read_input_tokens\":1}}} trailing",
            "{\"usage\":{\"cache_read_input_tokens\":1,}}",
            "{\"usage\":{\"cache_read_input_tokens\":01}}",
            "\u0000\u0001cache_read_input_tokens\uFFFF",
            "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + ",\"usage\":{\"cache_read_input_tokens\":9}",
            "{\"usage\":{\"cache_read_input_tokens\":1" + "9".repeat(5_000) + "}}",
        };
        for (String text : hostile) {
            assertThat(json(text))
                    .as(text.length() > 60 ? text.substring(0, 60) : text)
                    .isEmpty();
        }
        byte[] invalidUtf8 = {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}', 'c', 'a', 'c', 'h', 'e', 'd'};
        assertThat(CachedTokens.inJson(invalidUtf8)).isEmpty();
    }

    @Test
    void inJson_deepNestingOffThePathThenUsage_found() {
        String deep = "{\"a\":" + "[".repeat(500) + "]".repeat(500) + ",\"usage\":{\"cache_read_input_tokens\":9}}";

        assertThat(json(deep)).hasValue(9);
    }

    @Test
    void inJson_offsetAndLength_readsOnlyThatRange() {
        byte[] bytes = "xx{\"usage\":{\"cache_read_input_tokens\":42}}yy".getBytes(StandardCharsets.UTF_8);

        assertThat(CachedTokens.inJson(bytes, 2, bytes.length - 4)).hasValue(42);
        assertThat(CachedTokens.inJson(bytes, 0, bytes.length)).isEmpty();
        assertThat(CachedTokens.inJson(bytes, 40, 10)).isEmpty();
        assertThat(CachedTokens.inJson(bytes, -1, 3)).isEmpty();
    }
}
