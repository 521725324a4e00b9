package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /v1/chat/completions} in vLLM's shapes (docs/design.md §A1, §A8; {@code testdata/vllm/chat_*}): a
 * {@code chat.completion} with {@code n} choices ({@link Samples}), or a stream of {@code chat.completion.chunk}s (a
 * role chunk per choice, then each choice's chunks, one per token, the last carrying {@code finish_reason}), then,
 * only with {@code stream_options.include_usage}, one chunk with {@code "choices": []} and the usage, then
 * {@code data: [DONE]}. With {@code stream_options.continuous_usage_stats} too, every chunk carries its choice's usage
 * so far. Usage as {@link UsageJson#openAi} writes it.
 *
 * <p>Thread-safe and stateless beyond its parts.
 */
final class ChatApi {
    private final ApiParts parts;

    ChatApi(ApiParts parts) {
        this.parts = requireNonNull(parts, "parts");
    }

    void create(Exchange exchange) throws InterruptedException {
        JsonObject body = RequestModel.chat(exchange.json());
        String text = PromptText.chat(body); // pydantic's field checks (messages) come before the model lookup
        String model = parts.catalog().resolve(body);
        Prompt prompt = new Prompt(
                model,
                text,
                ModelCatalog.salt(body),
                ModelCatalog.maxTokens(body, "max_completion_tokens", "max_tokens"),
                PromptText.lastTurn(body.getJsonArray("messages"), "user"));
        boolean stream = JsonText.flag(body, "stream", false);
        StreamUsage usage = StreamUsage.of(body);
        int n = Samples.requested(body);
        Head head = new Head(parts.ids().chatCompletion(), parts.now(), model);
        try (Samples samples = new Samples(parts.engine(), prompt, exchange.faults(), n)) {
            if (stream) {
                stream(exchange.stream(), samples, head, usage);
            } else {
                JsonArrayBuilder choices = JsonText.array();
                do {
                    samples.run().decodeAll();
                    choices.add(choice(samples.index(), samples.run()));
                } while (samples.next()); // each run done before the answer leaves: a scrape after never counts it
                exchange.answer(200, completion(choices, samples.usage(), head));
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

    private static JsonObject choice(int index, Run run) {
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
        return JsonText.object()
                .add("index", index)
                .add("message", message)
                .addNull("logprobs")
                .add("finish_reason", finishReason(run))
                .addNull("stop_reason")
                .addNull("token_ids")
                .build();
    }

    private JsonObject completion(JsonArrayBuilder choices, Usage usage, Head head) {
        return head.start("chat.completion")
                .add("choices", choices)
                .addNull("service_tier")
                .add("system_fingerprint", ApiParts.FINGERPRINT)
                .add("usage", UsageJson.openAi(usage, parts.api()))
                .addNull("prompt_logprobs")
                .addNull("prompt_token_ids")
                .addNull("prompt_text")
                .addNull("kv_transfer_params")
                .build();
    }

    /**
     * A role chunk for every choice first, as vLLM sends them, then each choice's tokens in turn (each with its own
     * running usage), then the usage of all of them.
     */
    private void stream(EventStream events, Samples samples, Head head, StreamUsage usage) throws InterruptedException {
        int prompt = samples.usage().promptTokens();
        for (int c = 0; c < samples.count(); c++) {
            JsonObject role = JsonText.object()
                    .add("index", c)
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
        }
        do {
            Run run = samples.run();
            for (int i = 0; i < run.pieces().size(); i++) {
                run.nextToken();
                boolean last = i == run.pieces().size() - 1;
                JsonObjectBuilder chunk =
                        chunk(head, samples.index(), run.pieces().get(i), last ? finishReason(run) : null);
                if (usage.everyChunk()) {
                    chunk.add("usage", UsageJson.continuous(prompt, i + 1));
                }
                events.data(chunk.build());
            }
        } while (samples.next());
        if (usage.atEnd()) {
            events.data(head.start("chat.completion.chunk")
                    .add("choices", JsonText.array())
                    .add("usage", UsageJson.openAiChunk(samples.usage(), parts.api()))
                    .add("system_fingerprint", ApiParts.FINGERPRINT)
                    .build());
        }
        events.done();
        events.end();
    }

    private static JsonObjectBuilder chunk(Head head, int index, String content, @Nullable String finish) {
        JsonObjectBuilder choice = JsonText.object()
                .add("index", index)
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
