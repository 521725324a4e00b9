package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.util.Optional;

/**
 * The {@code Response} object of one Responses request at any stage (docs/design.md §A5.2, vLLM's
 * {@code ResponsesResponse} plus OpenAI's {@code conversation}): the request's settings echoed, a status, the output
 * items and the usage with {@code input_tokens_details.cached_tokens}.
 *
 * <p>Immutable.
 *
 * @param id the {@code resp_…} id
 * @param createdAt seconds since the epoch
 * @param model the served model
 * @param request the request body, whose settings the object echoes
 * @param previous the {@code previous_response_id}, if any
 * @param conversation the conversation id, if any
 */
record ResponseDraft(
        String id,
        long createdAt,
        String model,
        JsonObject request,
        Optional<String> previous,
        Optional<String> conversation) {

    ResponseDraft {
        requireNonNull(id, "id");
        requireNonNull(model, "model");
        requireNonNull(request, "request");
        requireNonNull(previous, "previous");
        requireNonNull(conversation, "conversation");
    }

    /** The object with {@code status}, no output and no usage ({@code queued}, {@code in_progress}). */
    JsonObject pending(String status) {
        return build(status, JsonText.array().build(), Optional.empty());
    }

    /** The finished object: {@code completed}, or {@code incomplete} when the output hit its limit. */
    JsonObject finished(Run run, JsonObject message) {
        return build(
                run.truncated() ? "incomplete" : "completed",
                JsonText.array().add(message).build(),
                Optional.of(usage(run.usage())));
    }

    /** The assistant message item {@code itemId} with {@code text}, {@code completed} or {@code in_progress}. */
    static JsonObject message(String itemId, String status, Optional<String> text) {
        return JsonText.object()
                .add("id", itemId)
                .add("type", "message")
                .add("role", "assistant")
                .add("status", status)
                .add(
                        "content",
                        text.map(t -> JsonText.array().add(outputText(t)).build())
                                .orElse(JsonValue.EMPTY_JSON_ARRAY))
                .build();
    }

    static JsonObject outputText(String text) {
        return JsonText.object()
                .add("type", "output_text")
                .add("text", text)
                .add("annotations", JsonText.array())
                .build();
    }

    private JsonObject build(String status, JsonArray output, Optional<JsonObject> usage) {
        JsonObjectBuilder response = JsonText.object()
                .add("id", id)
                .add("object", "response")
                .add("created_at", createdAt)
                .add("status", status)
                .add("background", JsonText.flag(request, "background", false))
                .addNull("error")
                .add(
                        "incomplete_details",
                        status.equals("incomplete")
                                ? JsonText.object()
                                        .add("reason", "max_output_tokens")
                                        .build()
                                : JsonValue.NULL)
                .add("instructions", echo("instructions"))
                .add("max_output_tokens", echo("max_output_tokens"))
                .addNull("max_tool_calls")
                .add("metadata", echo("metadata"))
                .add("model", model)
                .add("output", output)
                .add("parallel_tool_calls", JsonText.flag(request, "parallel_tool_calls", true))
                .add(
                        "previous_response_id",
                        previous.<JsonValue>map(JsonText::string).orElse(JsonValue.NULL))
                .add(
                        "conversation",
                        conversation
                                .<JsonValue>map(
                                        c -> JsonText.object().add("id", c).build())
                                .orElse(JsonValue.NULL))
                .addNull("prompt")
                .add("reasoning", echo("reasoning"))
                .add("service_tier", "auto")
                .add("store", JsonText.flag(request, "store", true))
                .add("temperature", request.getOrDefault("temperature", JsonText.number(1.0)))
                .add(
                        "text",
                        request.getOrDefault(
                                "text",
                                JsonText.object()
                                        .add("format", JsonText.object().add("type", "text"))
                                        .build()))
                .add("tool_choice", request.getOrDefault("tool_choice", JsonText.string("auto")))
                .add("tools", request.getOrDefault("tools", JsonValue.EMPTY_JSON_ARRAY))
                .addNull("top_logprobs")
                .add("top_p", request.getOrDefault("top_p", JsonText.number(1.0)))
                .add("truncation", request.getOrDefault("truncation", JsonText.string("disabled")));
        response.add("usage", usage.<JsonValue>map(u -> u).orElse(JsonValue.NULL));
        return response.add("user", echo("user")).build();
    }

    private JsonValue echo(String key) {
        return request.getOrDefault(key, JsonValue.NULL);
    }

    static JsonObject usage(Usage usage) {
        return JsonText.object()
                .add("input_tokens", usage.promptTokens())
                .add("input_tokens_details", JsonText.object().add("cached_tokens", usage.cachedTokens()))
                .add("output_tokens", usage.outputTokens())
                .add("output_tokens_details", JsonText.object().add("reasoning_tokens", 0))
                .add("total_tokens", usage.totalTokens())
                .build();
    }
}
