package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.Optional;

/**
 * {@code POST /v1/messages} and {@code /v1/messages/count_tokens} in Anthropic's shapes (docs/design.md §A3, §A8):
 * a {@code message} with {@code msg_…} id, or the event stream {@code message_start}, {@code content_block_start},
 * one {@code content_block_delta} per token, {@code content_block_stop}, {@code message_delta} (stop reason and
 * cumulative usage), {@code message_stop}. Usage follows Anthropic: {@code input_tokens} are the prompt tokens not
 * read from the cache, {@code cache_read_input_tokens} the cached ones. vLLM forwards no {@code cache_salt} here,
 * so none is read.
 *
 * <p>Thread-safe and stateless beyond its parts.
 */
final class MessagesApi {
    private final ApiParts parts;

    MessagesApi(ApiParts parts) {
        this.parts = requireNonNull(parts, "parts");
    }

    void create(Exchange exchange) throws InterruptedException {
        JsonObject body = exchange.json();
        String model = parts.catalog().resolve(body);
        if (JsonText.integer(body, "max_tokens").isEmpty()) {
            throw RequestRejected.badRequest("max_tokens: Field required", "max_tokens");
        }
        Prompt prompt = new Prompt(
                model,
                PromptText.anthropic(body),
                Optional.empty(),
                ModelCatalog.maxTokens(body, "max_tokens"),
                PromptText.lastTurn(body.getJsonArray("messages"), "user"));
        String id = parts.ids().message();
        try (Run run = parts.engine().start(prompt, exchange.faults())) {
            if (JsonText.flag(body, "stream", false)) {
                stream(exchange.stream(), run, message(id, model));
            } else {
                run.decode(run.pieces().size());
                JsonObject answer = message(id, model)
                        .add("content", JsonText.array().add(text(run.text())))
                        .add("stop_reason", stopReason(run))
                        .addNull("stop_sequence")
                        .add("usage", usage(run.usage(), run.usage().outputTokens()))
                        .build();
                // Done before the answer leaves, as an engine is: a scrape after the answer never counts it running.
                run.close();
                exchange.answer(200, answer);
            }
        }
    }

    void countTokens(Exchange exchange) {
        JsonObject body = exchange.json();
        parts.catalog().resolve(body);
        int tokens = parts.engine().tokens(PromptText.anthropic(body));
        exchange.answer(200, JsonText.object().add("input_tokens", tokens).build());
    }

    private static void stream(EventStream events, Run run, JsonObjectBuilder message) throws InterruptedException {
        JsonObject start = message.add("content", JsonText.array())
                .addNull("stop_reason")
                .addNull("stop_sequence")
                .add("usage", usage(run.usage(), 0))
                .build();
        events.event(
                "message_start", typed("message_start").add("message", start).build());
        events.event(
                "content_block_start",
                typed("content_block_start")
                        .add("index", 0)
                        .add("content_block", text(""))
                        .build());
        for (String piece : run.pieces()) {
            run.decode(1);
            events.event(
                    "content_block_delta",
                    typed("content_block_delta")
                            .add("index", 0)
                            .add(
                                    "delta",
                                    JsonText.object().add("type", "text_delta").add("text", piece))
                            .build());
        }
        events.event(
                "content_block_stop",
                typed("content_block_stop").add("index", 0).build());
        events.event(
                "message_delta",
                typed("message_delta")
                        .add(
                                "delta",
                                JsonText.object()
                                        .add("stop_reason", stopReason(run))
                                        .addNull("stop_sequence"))
                        .add("usage", usage(run.usage(), run.usage().outputTokens()))
                        .build());
        events.event("message_stop", typed("message_stop").build());
        events.end();
    }

    private static JsonObjectBuilder message(String id, String model) {
        return JsonText.object()
                .add("id", id)
                .add("type", "message")
                .add("role", "assistant")
                .add("model", model);
    }

    private static JsonObjectBuilder typed(String type) {
        return JsonText.object().add("type", type);
    }

    private static JsonObject text(String text) {
        return JsonText.object().add("type", "text").add("text", text).build();
    }

    private static String stopReason(Run run) {
        return run.truncated() ? "max_tokens" : "end_turn";
    }

    private static JsonObject usage(Usage usage, int outputTokens) {
        return JsonText.object()
                .add("input_tokens", usage.promptTokens() - usage.cachedTokens())
                .add("cache_creation_input_tokens", 0)
                .add("cache_read_input_tokens", usage.cachedTokens())
                .add("output_tokens", outputTokens)
                .build();
    }
}
