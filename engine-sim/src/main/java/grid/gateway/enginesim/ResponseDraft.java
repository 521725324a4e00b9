package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.util.Optional;

/**
 * The {@code Response} object of one Responses request at any stage, in vLLM's fields and order (docs/design.md
 * §A5.2; {@code testdata/vllm/responses_*}), plus OpenAI's {@code conversation} when the request named one (only
 * with the Conversations API on): the request's settings echoed, a status, the output items and the usage with
 * {@code input_tokens_details.cached_tokens}, always present.
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
                Optional.of(UsageJson.responses(run.usage())));
    }

    /**
     * The assistant message item {@code itemId} with {@code text}, {@code completed} or {@code in_progress}, as vLLM
     * writes it in a response's {@code output}.
     */
    static JsonObject message(String itemId, String status, Optional<String> text) {
        return JsonText.object()
                .add("id", itemId)
                .add(
                        "content",
                        text.map(t -> JsonText.array()
                                        .add(outputText(t, JsonValue.NULL))
                                        .build())
                                .orElse(JsonValue.EMPTY_JSON_ARRAY))
                .add("role", "assistant")
                .add("status", status)
                .add("type", "message")
                .addNull("phase")
                .build();
    }

    /** An {@code output_text} part; {@code logprobs} is {@code []} in stream events and {@code null} elsewhere. */
    static JsonObject outputText(String text, JsonValue logprobs) {
        return JsonText.object()
                .add("annotations", JsonText.array())
                .add("text", text)
                .add("type", "output_text")
                .add("logprobs", logprobs)
                .build();
    }

    private JsonObject build(String status, JsonArray output, Optional<JsonObject> usage) {
        JsonArray tools = JsonText.arrayField(request, "tools").orElse(JsonValue.EMPTY_JSON_ARRAY);
        JsonObjectBuilder response = JsonText.object()
                .add("id", id)
                .add("created_at", createdAt)
                .add(
                        "incomplete_details",
                        status.equals("incomplete")
                                ? JsonText.object()
                                        .add("reason", "max_output_tokens")
                                        .build()
                                : JsonValue.NULL)
                .add("instructions", echo("instructions"))
                .add("metadata", echo("metadata"))
                .add("model", model)
                .add("object", "response")
                .add("output", output)
                .add("parallel_tool_calls", JsonText.flag(request, "parallel_tool_calls", true))
                .add("temperature", sampling("temperature"))
                .add(
                        "tool_choice",
                        request.getOrDefault("tool_choice", JsonText.string(tools.isEmpty() ? "none" : "auto")))
                .add("tools", tools)
                .add("top_p", sampling("top_p"))
                .add("background", JsonText.flag(request, "background", false))
                .add("max_output_tokens", echo("max_output_tokens"))
                .addNull("max_tool_calls")
                .add(
                        "previous_response_id",
                        previous.<JsonValue>map(JsonText::string).orElse(JsonValue.NULL));
        conversation.ifPresent(
                c -> response.add("conversation", JsonText.object().add("id", c)));
        return response.addNull("prompt")
                .add("reasoning", echo("reasoning"))
                .add("service_tier", "auto")
                .add("status", status)
                .add("text", echo("text"))
                .addNull("top_logprobs")
                .add("truncation", request.getOrDefault("truncation", JsonText.string("disabled")))
                .add("usage", usage.<JsonValue>map(u -> u).orElse(JsonValue.NULL))
                .add("user", echo("user"))
                .add("presence_penalty", request.getOrDefault("presence_penalty", JsonText.number(0.0)))
                .add("frequency_penalty", request.getOrDefault("frequency_penalty", JsonText.number(0.0)))
                .addNull("kv_transfer_params")
                .addNull("input_messages")
                .addNull("output_messages")
                .build();
    }

    private JsonValue echo(String key) {
        return request.getOrDefault(key, JsonValue.NULL);
    }

    /**
     * A sampling parameter as echoed, 1.0 when absent; a NaN or infinite one (Python's {@code json} reads them) as
     * null, as pydantic writes a non-finite float in JSON, so that the answer stays JSON every reader accepts.
     */
    private JsonValue sampling(String key) {
        JsonValue value = request.getOrDefault(key, JsonText.number(1.0));
        return value instanceof PythonFloat number && !number.isFinite() ? JsonValue.NULL : value;
    }
}
