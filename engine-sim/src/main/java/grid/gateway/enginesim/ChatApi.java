package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /v1/chat/completions} in vLLM's shapes (docs/design.md §A1, §A8; {@code testdata/vllm/chat_*}): a
 * {@code chat.completion}, or a stream of {@code chat.completion.chunk}s (a role chunk, one chunk per token, the last
 * carrying {@code finish_reason}), then, only with {@code stream_options.include_usage}, one chunk with
 * {@code "choices": []} and the usage, then {@code data: [DONE]}. With {@code stream_options.continuous_usage_stats}
 * too, every chunk carries the usage so far. Usage as {@link UsageJson#openAi} writes it.
 *
 * <p>Thread-safe and stateless beyond its parts.
 */
final class ChatApi {
    private final ApiParts parts;

    ChatApi(ApiParts parts) {
        this.parts = requireNonNull(parts, "parts");
    }

    void create(Exchange exchange) throws InterruptedException {
        JsonObject body = exchange.json();
        String model = parts.catalog().resolve(body);
        Prompt prompt = new Prompt(
                model,
                PromptText.chat(body),
                ModelCatalog.salt(body),
                ModelCatalog.maxTokens(body, "max_completion_tokens", "max_tokens"),
                PromptText.lastTurn(body.getJsonArray("messages"), "user"));
        boolean stream = JsonText.flag(body, "stream", false);
        StreamUsage usage = StreamUsage.of(body);
        Head head = new Head(parts.ids().chatCompletion(), parts.now(), model);
        try (Run run = parts.engine().start(prompt, exchange.faults())) {
            if (stream) {
                stream(exchange.stream(), run, head, usage);
            } else {
                run.decodeAll();
                JsonObject answer = completion(run, head);
                // Done before the answer leaves, as an engine is: a scrape after the answer never counts it running.
                run.close();
                exchange.answer(200, answer);
            }
        }
    }

    /** The fields every object of one answer repeats. */
    record Head(String id, long created, String model) {
        JsonObjectBuilder start(String object) {
            return JsonText.object()
                    .add("id", id)
                    .add("object", object)
                    .add("created", created)
                    .add("model", model);
        }
    }

    /**
     * What a stream reports of its usage: with {@code stream_options.include_usage}, a final usage chunk; with
     * {@code continuous_usage_stats} as well, the usage so far in every chunk (vLLM ignores it without the first).
     */
    record StreamUsage(boolean atEnd, boolean everyChunk) {
        static StreamUsage of(JsonObject body) {
            return JsonText.objectField(body, "stream_options")
                    .map(o -> {
                        boolean include = JsonText.flag(o, "include_usage", false);
                        return new StreamUsage(include, include && JsonText.flag(o, "continuous_usage_stats", false));
                    })
                    .orElse(new StreamUsage(false, false));
        }
    }

    private JsonObject completion(Run run, Head head) {
        JsonObject message = JsonText.object()
                .add("role", "assistant")
                .add("content", run.text())
                .addNull("refusal")
                .addNull("annotations")
                .addNull("audio")
                .addNull("function_call")
                .add("tool_calls", JsonText.array())
                .addNull("reasoning")
                .build();
        JsonObject choice = JsonText.object()
                .add("index", 0)
                .add("message", message)
                .addNull("logprobs")
                .add("finish_reason", finishReason(run))
                .addNull("stop_reason")
                .addNull("token_ids")
                .build();
        return head.start("chat.completion")
                .add("choices", JsonText.array().add(choice))
                .addNull("service_tier")
                .add("system_fingerprint", ApiParts.FINGERPRINT)
                .add("usage", UsageJson.openAi(run.usage(), parts.api()))
                .addNull("prompt_logprobs")
                .addNull("prompt_token_ids")
                .addNull("prompt_text")
                .addNull("kv_transfer_params")
                .build();
    }

    private void stream(EventStream events, Run run, Head head, StreamUsage usage) throws InterruptedException {
        int prompt = run.usage().promptTokens();
        JsonObject role = JsonText.object()
                .add("index", 0)
                .add("delta", JsonText.object().add("role", "assistant").add("content", ""))
                .addNull("logprobs")
                .addNull("finish_reason")
                .build();
        JsonObjectBuilder first = head.start("chat.completion.chunk")
                .add("choices", JsonText.array().add(role));
        if (usage.everyChunk()) {
            first.add("usage", UsageJson.continuous(prompt, 0));
        }
        events.data(first.addNull("prompt_token_ids").addNull("prompt_text").build());
        for (int i = 0; i < run.pieces().size(); i++) {
            run.nextToken();
            boolean last = i == run.pieces().size() - 1;
            JsonObjectBuilder chunk = chunk(head, run.pieces().get(i), last ? finishReason(run) : null);
            if (usage.everyChunk()) {
                chunk.add("usage", UsageJson.continuous(prompt, i + 1));
            }
            events.data(chunk.build());
        }
        if (usage.atEnd()) {
            events.data(head.start("chat.completion.chunk")
                    .add("choices", JsonText.array())
                    .add("usage", UsageJson.openAiChunk(run.usage(), parts.api()))
                    .add("system_fingerprint", ApiParts.FINGERPRINT)
                    .build());
        }
        events.done();
        events.end();
    }

    private static JsonObjectBuilder chunk(Head head, String content, @Nullable String finish) {
        JsonObjectBuilder choice = JsonText.object()
                .add("index", 0)
                .add("delta", JsonText.object().add("content", content))
                .addNull("logprobs");
        if (finish == null) {
            choice.addNull("finish_reason");
        } else {
            choice.add("finish_reason", finish).addNull("stop_reason");
        }
        choice.addNull("token_ids");
        return head.start("chat.completion.chunk")
                .add("choices", JsonText.array().add(choice));
    }

    static String finishReason(Run run) {
        return run.truncated() ? "length" : "stop";
    }
}
