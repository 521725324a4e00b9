package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import java.util.List;

/**
 * A response the simulator stored (vLLM with {@code VLLM_ENABLE_RESPONSES_API_STORE=1}, docs/design.md §A6.1).
 *
 * <p>Immutable; a change of status stores a replacement.
 *
 * @param response the {@code Response} object as retrieved
 * @param input the request's input items, with ids, for {@code input_items}
 * @param context what a later {@code previous_response_id} replays: this response's own context, its input, and
 *     its output messages
 */
record StoredResponse(JsonObject response, List<JsonObject> input, List<JsonObject> context) {
    StoredResponse {
        requireNonNull(response, "response");
        input = List.copyOf(input);
        context = List.copyOf(context);
    }

    String status() {
        return response.getString("status", "");
    }

    /** Whether {@code cancel} can still stop it. */
    boolean isRunning() {
        return status().equals("queued") || status().equals("in_progress");
    }

    StoredResponse withResponse(JsonObject replacement) {
        return new StoredResponse(replacement, input, context);
    }
}
