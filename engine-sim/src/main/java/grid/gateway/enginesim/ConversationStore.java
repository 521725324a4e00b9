package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The simulator's stored conversations, by {@code conv_…} id, one store per simulator.
 *
 * <p>Thread-safe: a {@link ConcurrentHashMap} of immutable entries, changed atomically with {@code compute}.
 */
final class ConversationStore {
    private final Map<String, Conversation> conversations = new ConcurrentHashMap<>();

    void put(Conversation conversation) {
        conversations.put(conversation.id(), conversation);
    }

    /** The stored conversation, or a 404 about {@code param}. */
    Conversation require(String id, String param) {
        Conversation conversation = conversations.get(id);
        if (conversation == null) {
            throw notFound(id, param);
        }
        return conversation;
    }

    /** Replaces the conversation by {@code change} of it; a 404 when unknown. */
    Conversation update(String id, UnaryOperator<Conversation> change) {
        requireNonNull(change, "change");
        Conversation changed = conversations.computeIfPresent(id, (key, conversation) -> change.apply(conversation));
        if (changed == null) {
            throw notFound(id, "conversation_id");
        }
        return changed;
    }

    /** Appends {@code items} to the conversation, if it is still stored. */
    void append(String id, java.util.List<JsonObject> items) {
        conversations.computeIfPresent(id, (key, conversation) -> conversation.withItems(items));
    }

    Optional<Conversation> remove(String id) {
        return Optional.ofNullable(conversations.remove(id));
    }

    private static RequestRejected notFound(String id, String param) {
        return RequestRejected.notFound("Conversation with id '" + id + "' not found.", param);
    }
}
