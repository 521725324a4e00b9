package grid.gateway.enginesim;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The checks vLLM's OpenAI request models ({@code ChatCompletionRequest}, {@code CompletionRequest}) make of a body
 * before any field is read: their {@code model_validator(mode="before")} methods, run by pydantic last-declared
 * first, so before a missing or wrong-typed field is noticed and before the model is looked up (an unknown model
 * is a 404 only for a body these pass). Each refusal is pydantic's {@code value_error} ({@link
 * RequestRejected#valueError}, {@link RequestRejected#vllmValidation}): 400 {@code "Bad Request"}, the connection
 * closed after it, like the recorded refusal of a missing field ({@code testdata/vllm/error_bad_json.json}).
 *
 * <p>The checks read the body as Python does: a value counts when it is truthy ({@code null}, {@code false}, 0,
 * {@code ""}, {@code []} and {@code {}} do not). Numbers that the checks compare are compared only when they are
 * numbers (vLLM's own comparison of another type fails in Python, outside what is imitated: docs/vllm.md).
 *
 * <p>Stateless.
 */
final class RequestModel {
    private RequestModel() {}

    /**
     * The body as {@code ChatCompletionRequest}'s checks leave it (tools without a {@code tool_choice} get
     * {@code "auto"}; {@code "required"} with no tools becomes {@code "none"} without them), or their refusal.
     */
    static JsonObject chat(JsonObject body) {
        cacheSalt(body);
        if (truthy(body.get("continue_final_message")) && truthy(body.get("add_generation_prompt"))) {
            throw RequestRejected.valueError(
                    "Cannot set both `continue_final_message` and `add_generation_prompt` to True.", body);
        }
        JsonObject data = toolUsage(body);
        promptLogprobs(data);
        number(data.get("top_logprobs")).ifPresent(top -> {
            if (top < 0 && top != -1) {
                throw RequestRejected.vllmValidation(
                        "`top_logprobs` must be a positive value or -1.",
                        "top_logprobs",
                        Optional.ofNullable(data.get("top_logprobs")),
                        data);
            }
            if ((top == -1 || top > 0) && !truthy(data.get("logprobs"))) {
                throw RequestRejected.vllmValidation(
                        "when using `top_logprobs`, `logprobs` must be set to true.",
                        "top_logprobs",
                        Optional.empty(),
                        data);
            }
        });
        streamOptions(data);
        return data;
    }

    /** {@code CompletionRequest}'s checks of {@code body}. */
    static void completion(JsonObject body) {
        cacheSalt(body);
        JsonValue prompt = body.get("prompt");
        JsonValue embeds = body.get("prompt_embeds");
        boolean noPrompt = isNull(prompt)
                || prompt instanceof JsonString s && s.getString().isEmpty();
        boolean noEmbeds = isNull(embeds) || embeds instanceof JsonArray a && a.isEmpty();
        if (noPrompt && noEmbeds) {
            throw RequestRejected.valueError("Either prompt or prompt_embeds must be provided and non-empty.", body);
        }
        streamOptions(body);
        promptLogprobs(body);
        number(body.get("logprobs")).ifPresent(logprobs -> {
            if (logprobs < 0) {
                throw RequestRejected.vllmValidation(
                        "`logprobs` must be a positive value.",
                        "logprobs",
                        Optional.ofNullable(body.get("logprobs")),
                        body);
            }
        });
    }

    private static void cacheSalt(JsonObject body) {
        JsonValue salt = body.get("cache_salt");
        if (!isNull(salt) && !(salt instanceof JsonString s && !s.getString().isEmpty())) {
            throw RequestRejected.valueError("Parameter 'cache_salt' must be a non-empty string if provided.", body);
        }
    }

    /** {@code stream_options} only with {@code stream} (both as Python reads them). */
    private static void streamOptions(JsonObject body) {
        if (truthy(body.get("stream_options")) && !truthy(body.get("stream"))) {
            throw RequestRejected.vllmValidation(
                    "Stream options can only be defined when `stream=True`.", "stream_options", Optional.empty(), body);
        }
    }

    private static void promptLogprobs(JsonObject body) {
        number(body.get("prompt_logprobs")).ifPresent(logprobs -> {
            if (truthy(body.get("stream")) && (logprobs > 0 || logprobs == -1)) {
                throw RequestRejected.vllmValidation(
                        "`prompt_logprobs` are not available when `stream=True`.",
                        "prompt_logprobs",
                        Optional.empty(),
                        body);
            }
            if (logprobs < 0 && logprobs != -1) {
                throw RequestRejected.vllmValidation(
                        "`prompt_logprobs` must be a positive value or -1.",
                        "prompt_logprobs",
                        Optional.ofNullable(body.get("prompt_logprobs")),
                        body);
            }
        });
    }

    /**
     * {@code check_tool_usage}: a {@code tool_choice} other than {@code "none"} needs {@code tools}, and a string
     * one must be {@code "auto"} or {@code "required"}. What it writes into the body shows in a later check's
     * quoted input, as it does in vLLM's.
     */
    private static JsonObject toolUsage(JsonObject body) {
        JsonObject data = body;
        if (!body.containsKey("tool_choice") && truthy(body.get("tools"))) {
            data = JsonText.with(body, "tool_choice", "auto");
        }
        JsonValue choice = data.getOrDefault("tool_choice", JsonValue.NULL);
        if (isNull(choice) || choice instanceof JsonString s && s.getString().equals("none")) {
            return data;
        }
        if (isNull(data.get("tools"))) {
            throw RequestRejected.valueError("When using `tool_choice`, `tools` must be set.", data);
        }
        String named = choice instanceof JsonString s ? s.getString() : "";
        if (!named.equals("auto") && !named.equals("required") && !(choice instanceof JsonObject)) {
            throw RequestRejected.valueError(
                    "Invalid value for `tool_choice`: " + (choice instanceof JsonString ? named : PythonRepr.of(choice))
                            + "! Only named tools, \"none\", \"auto\" or \"required\" are supported.",
                    data);
        }
        if (named.equals("required") && data.get("tools") instanceof JsonArray tools && tools.isEmpty()) {
            JsonObjectBuilder without = JsonText.object();
            data.forEach((key, value) -> {
                if (!key.equals("tools")) {
                    without.add(key, key.equals("tool_choice") ? JsonText.string("none") : value);
                }
            });
            return without.build();
        }
        return data;
    }

    /** Python's truth of a JSON value; absent is false. */
    static boolean truthy(@Nullable JsonValue value) {
        if (value == null) {
            return false;
        }
        return switch (value.getValueType()) {
            case NULL, FALSE -> false;
            case TRUE -> true;
            case NUMBER -> ((JsonNumber) value).doubleValue() != 0;
            case STRING -> !((JsonString) value).getString().isEmpty();
            case ARRAY -> !value.asJsonArray().isEmpty();
            case OBJECT -> !value.asJsonObject().isEmpty();
        };
    }

    private static boolean isNull(@Nullable JsonValue value) {
        return value == null || value.getValueType() == JsonValue.ValueType.NULL;
    }

    /** A number as Python compares it ({@code true} and {@code false} are 1 and 0); empty for another type. */
    private static Optional<Double> number(@Nullable JsonValue value) {
        if (value instanceof JsonNumber n) {
            return Optional.of(n.doubleValue());
        }
        if (value == JsonValue.TRUE || value == JsonValue.FALSE) {
            return Optional.of(value == JsonValue.TRUE ? 1.0 : 0.0);
        }
        return Optional.empty();
    }
}
