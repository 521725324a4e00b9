package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.Optional;

/**
 * {@code POST /v1/messages} and {@code /v1/messages/count_tokens} as vLLM's Anthropic endpoint answers them
 * (docs/design.md §A3, §A8; {@code testdata/vllm/post_v1_messages*}, {@code anthropic_messages_stream*}): a
 * {@code message} with a {@code chatcmpl-…} id, or the event stream {@code message_start}, {@code content_block_start},
 * one {@code content_block_delta} per token, {@code content_block_stop}, {@code message_delta} (stop reason and
 * cumulative usage), {@code message_stop}. Usage is vLLM's: {@code input_tokens} (every prompt token, cached or not)
 * and {@code output_tokens} only; a cache hit is never reported. vLLM forwards no {@code cache_salt} here, so none
 * is read.
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
            throw RequestRejected.missing("max_tokens", body);
        }
        Prompt prompt = new Prompt(
                model,
                PromptText.anthropic(body),
                Optional.empty(),
                ModelCatalog.maxTokens(body, "max_tokens"),
                PromptText.lastTurn(body.getJsonArray("messages"), "user"));
        String id = parts.ids().chatCompletion();
        try (Run run = parts.engine().start(prompt, exchange.faults())) {
            if (JsonText.flag(body, "stream", false)) {
                stream(exchange.stream(), run, id, model);
            } else {
                run.decodeAll();
                JsonObject answer = JsonText.object()
                        .add("id", id)
                        .add("type", "message")
                        .add("role", "assistant")
                        .add("content", JsonText.array().add(text(run.text())))
                        .add("model", model)
                        .add("stop_reason", stopReason(run))
                        .add(
                                "usage",
                                UsageJson.anthropic(run.usage(), run.usage().outputTokens()))
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
        exchange.answer(
                200,
                JsonText.object()
                        .add("input_tokens", tokens)
                        .add("context_management", JsonText.object().add("original_input_tokens", tokens))
                        .build());
    }

    /** The stream of message {@code id}; its {@code message_start} carries no type or role, as vLLM's. */
    private static void stream(EventStream events, Run run, String id, String model) throws InterruptedException {
        JsonObject start = JsonText.object()
                .add("id", id)
                .add("content", JsonText.array())
                .add("model", model)
                .addNull("stop_reason")
                .addNull("stop_sequence")
                .add("usage", UsageJson.anthropic(run.usage(), 0))
                .build();
        events.event(
                "message_start", typed("message_start").add("message", start).build());
        events.event(
                "content_block_start",
                typed("content_block_start")
                        .add("content_block", text(""))
                        .add("index", 0)
                        .build());
        for (String piece : run.pieces()) {
            run.nextToken();
            events.event(
                    "content_block_delta",
                    typed("content_block_delta")
                            .add(
                                    "delta",
                                    JsonText.object().add("type", "text_delta").add("text", piece))
                            .add("index", 0)
                            .build());
        }
        events.event(
                "content_block_stop",
                typed("content_block_stop").add("index", 0).build());
        events.event(
                "message_delta",
                typed("message_delta")
                        .add("delta", JsonText.object().add("stop_reason", stopReason(run)))
                        .add(
                                "usage",
                                UsageJson.anthropic(run.usage(), run.usage().outputTokens()))
                        .build());
        events.event("message_stop", typed("message_stop").build());
        events.end();
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
}
