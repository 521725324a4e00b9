package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The simulator's stored responses, by {@code resp_…} id, as vLLM's in-process {@code response_store}: no eviction,
 * no persistence, one store per simulator, so an id is known only to the engine that made it.
 *
 * <p>Thread-safe: a {@link ConcurrentHashMap} of immutable entries, changed atomically with {@code compute}.
 */
final class ResponseStore {
    private final Map<String, StoredResponse> responses = new ConcurrentHashMap<>();

    void put(String id, StoredResponse response) {
        responses.put(requireNonNull(id, "id"), requireNonNull(response, "response"));
    }

    /** The stored response, or vLLM's 404 about {@code param}. */
    StoredResponse require(String id, String param) {
        StoredResponse stored = responses.get(id);
        if (stored == null) {
            throw notFound(id, param);
        }
        return stored;
    }

    Optional<StoredResponse> remove(String id) {
        return Optional.ofNullable(responses.remove(id));
    }

    /**
     * Marks a queued or running response {@code cancelled} and returns it; a 404 when unknown, and vLLM's 400 when it
     * already finished.
     */
    StoredResponse cancel(String id) {
        StoredResponse cancelled = responses.computeIfPresent(id, (key, stored) -> {
            if (!stored.isRunning()) {
                throw RequestRejected.invalid("Cannot cancel a synchronous response.", "response_id");
            }
            return stored.withResponse(JsonText.with(stored.response(), "status", "cancelled"));
        });
        if (cancelled == null) {
            throw notFound(id, "response_id");
        }
        return cancelled;
    }

    /** Stores the finished {@code response} of a background run, unless it was cancelled or deleted meanwhile. */
    void finish(String id, StoredResponse response) {
        responses.computeIfPresent(id, (key, stored) -> stored.isRunning() ? response : stored);
    }

    /** The status of a stored response, or empty. */
    Optional<String> status(String id) {
        return Optional.ofNullable(responses.get(id)).map(StoredResponse::status);
    }

    private static RequestRejected notFound(String id, String param) {
        return RequestRejected.notFound("Response with id '" + id + "' not found.", param);
    }

    /** The JSON of a stored response. */
    JsonObject json(String id) {
        return require(id, "response_id").response();
    }
}
