package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The usage of a non-streamed answer longer than the 64 KiB tail the relay keeps of it (a long generation) is read,
 * as vLLM writes it: among the body's last members (docs/decisions.md, "Cached tokens"). Real sockets: the gateway in
 * front of a scripted engine, framed by length and chunked.
 */
class LongAnswerUsageIntegrationTest extends BehindAFreshGateway {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    /** vLLM's chat answer (testdata/vllm/chat_long_2.json), its generated text {@code length} characters long. */
    static String longChatAnswer(int length) {
        return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1796414847,\"model\":\"demo-model\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + "w".repeat(length)
                + "\",\"refusal\":null,\"tool_calls\":[],\"reasoning\":null},\"logprobs\":null,"
                + "\"finish_reason\":\"length\",\"stop_reason\":null,\"token_ids\":null}],\"service_tier\":null,"
                + "\"usage\":{\"prompt_tokens\":2568,\"total_tokens\":2569,\"completion_tokens\":1,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":2560}},\"prompt_logprobs\":null,"
                + "\"prompt_token_ids\":null,\"prompt_text\":null,\"kv_transfer_params\":null}";
    }

    @Test
    void answerLongerThanTheKeptTail_byLength_cachedTokensReported() {
        String body = longChatAnswer(300_000);
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body);

        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo(body);
        assertThat(gateway.accessLog.next().get("reported_cached_tokens")).isEqualTo(Json.createValue(2560));
    }

    @Test
    void answerLongerThanTheKeptTail_chunked_cachedTokensReported() {
        String body = longChatAnswer(200_000);
        int half = body.length() / 2;
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked"
                + "\r\n\r\n" + Integer.toHexString(half) + "\r\n" + body.substring(0, half) + "\r\n"
                + Integer.toHexString(body.length() - half) + "\r\n" + body.substring(half) + "\r\n0\r\n\r\n");

        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo(body);
        assertThat(gateway.accessLog.next().get("reported_cached_tokens")).isEqualTo(Json.createValue(2560));
    }
}
