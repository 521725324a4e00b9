package grid.gateway.enginesim;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The served models and the request fields every generation API shares: which model a body names (vLLM answers a
 * body without one with its first model and an unknown one with a 404), its {@code cache_salt} (vLLM's validator
 * wants a non-empty string), its output limit, and {@code GET /v1/models}.
 *
 * <p>Immutable and thread-safe.
 */
final class ModelCatalog {
    /** The context length {@code /v1/models} reports. */
    static final int MAX_MODEL_LEN = 32768;

    private final List<String> models;

    ModelCatalog(List<String> models) {
        this.models = List.copyOf(models);
    }

    /** The model {@code body} names, or the first served model when it names none. */
    String resolve(JsonObject body) {
        String model = JsonText.string(body, "model").orElse(models.getFirst());
        if (!models.contains(model)) {
            throw RequestRejected.modelNotFound(model);
        }
        return model;
    }

    /** The body's {@code cache_salt}. */
    static Optional<String> salt(JsonObject body) {
        Optional<String> salt = JsonText.string(body, "cache_salt");
        if (salt.isPresent() && salt.get().isEmpty()) {
            throw RequestRejected.badRequest(
                    "Parameter 'cache_salt' must be a non-empty string if provided.", "cache_salt");
        }
        return salt;
    }

    /** The first of {@code keys} that {@code body} sets, as an output limit of at least one token. */
    static OptionalInt maxTokens(JsonObject body, String... keys) {
        for (String key : keys) {
            OptionalInt limit = JsonText.integer(body, key);
            if (limit.isPresent()) {
                if (limit.getAsInt() < 1) {
                    throw RequestRejected.badRequest(key + " must be at least 1, got " + limit.getAsInt() + ".", key);
                }
                return limit;
            }
        }
        return OptionalInt.empty();
    }

    /** {@code GET /v1/models}, in vLLM's shape. */
    JsonObject list(long createdAt) {
        JsonArrayBuilder data = JsonText.array();
        for (String model : models) {
            data.add(JsonText.object()
                    .add("id", model)
                    .add("object", "model")
                    .add("created", createdAt)
                    .add("owned_by", "vllm")
                    .add("root", model)
                    .addNull("parent")
                    .add("max_model_len", MAX_MODEL_LEN));
        }
        return JsonText.object().add("object", "list").add("data", data).build();
    }
}
