package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/**
 * {@code POST /v1/chat/completions} in vLLM's shapes (docs/design.md §A1, §A8): a {@code chat.completion} with
 * {@code usage.prompt_tokens_details.cached_tokens}, or a stream of {@code chat.completion.chunk}s (a role chunk,
 * one chunk per token, the last carrying {@code finish_reason}), then, only with
 * {@code stream_options.include_usage}, a chunk with empty {@code choices} and the usage, then {@code [DONE]}.
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
        boolean includeUsage = JsonText.objectField(body, "stream_options")
                .map(o -> JsonText.flag(o, "include_usage", false))
                .orElse(false);
        Head head = new Head(parts.ids().chatCompletion(), parts.now(), model);
        try (Run run = parts.engine().start(prompt, exchange.faults())) {
            if (stream) {
                stream(exchange.stream(), run, head, includeUsage);
            } else {
                run.decode(run.pieces().size());
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

    private static JsonObject completion(Run run, Head head) {
        JsonObject message = JsonText.object()
                .add("role", "assistant")
                .add("content", run.text())
                .addNull("refusal")
                .addNull("annotations")
                .addNull("audio")
                .addNull("function_call")
                .add("tool_calls", JsonText.array())
                .addNull("reasoning_content")
                .build();
        JsonObject choice = JsonText.object()
                .add("index", 0)
                .add("message", message)
                .addNull("logprobs")
                .add("finish_reason", finishReason(run))
                .addNull("stop_reason")
                .build();
        return head.start("chat.completion")
                .add("choices", JsonText.array().add(choice))
                .addNull("service_tier")
                .addNull("system_fingerprint")
                .add("usage", usage(run.usage()))
                .addNull("prompt_logprobs")
                .addNull("kv_transfer_params")
                .build();
    }

    private static void stream(EventStream events, Run run, Head head, boolean includeUsage)
            throws InterruptedException {
        events.data(chunk(
                head,
                JsonText.object().add("role", "assistant").add("content", "").build(),
                null));
        for (int i = 0; i < run.pieces().size(); i++) {
            run.decode(1);
            boolean last = i == run.pieces().size() - 1;
            events.data(chunk(
                    head,
                    JsonText.object().add("content", run.pieces().get(i)).build(),
                    last ? finishReason(run) : null));
        }
        if (includeUsage) {
            events.data(head.start("chat.completion.chunk")
                    .add("choices", JsonText.array())
                    .add("usage", usage(run.usage()))
                    .build());
        }
        events.done();
        events.end();
    }

    private static JsonObject chunk(Head head, JsonObject delta, @org.jspecify.annotations.Nullable String finish) {
        JsonObjectBuilder choice =
                JsonText.object().add("index", 0).add("delta", delta).addNull("logprobs");
        if (finish == null) {
            choice.addNull("finish_reason");
        } else {
            choice.add("finish_reason", finish).addNull("stop_reason");
        }
        return head.start("chat.completion.chunk")
                .add("choices", JsonText.array().add(choice))
                .build();
    }

    static String finishReason(Run run) {
        return run.truncated() ? "length" : "stop";
    }

    /** OpenAI usage with vLLM's {@code prompt_tokens_details} (as with {@code --enable-prompt-tokens-details}). */
    static JsonObject usage(Usage usage) {
        return JsonText.object()
                .add("prompt_tokens", usage.promptTokens())
                .add("total_tokens", usage.totalTokens())
                .add("completion_tokens", usage.outputTokens())
                .add("prompt_tokens_details", JsonText.object().add("cached_tokens", usage.cachedTokens()))
                .build();
    }
}
