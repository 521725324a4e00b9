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
    private final List<String> models;
    private final int maxModelLen;

    /** The catalog of {@code models}, each with a context of {@code maxModelLen} tokens. */
    ModelCatalog(List<String> models, int maxModelLen) {
        this.models = List.copyOf(models);
        this.maxModelLen = maxModelLen;
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

    /** {@code GET /v1/models}, in vLLM's shape; {@code permissionId} names the one permission object. */
    JsonObject list(long createdAt, String permissionId) {
        JsonArrayBuilder data = JsonText.array();
        for (String model : models) {
            data.add(JsonText.object()
                    .add("id", model)
                    .add("object", "model")
                    .add("created", createdAt)
                    .add("owned_by", "vllm")
                    .add("root", model)
                    .addNull("parent")
                    .add("max_model_len", maxModelLen)
                    .add("permission", JsonText.array().add(permission(createdAt, permissionId))));
        }
        return JsonText.object().add("object", "list").add("data", data).build();
    }

    private static JsonObject permission(long createdAt, String id) {
        return JsonText.object()
                .add("id", id)
                .add("object", "model_permission")
                .add("created", createdAt)
                .add("allow_create_engine", false)
                .add("allow_sampling", true)
                .add("allow_logprobs", true)
                .add("allow_search_indices", false)
                .add("allow_view", true)
                .add("allow_fine_tuning", false)
                .add("organization", "*")
                .addNull("group")
                .add("is_blocking", false)
                .build();
    }
}
