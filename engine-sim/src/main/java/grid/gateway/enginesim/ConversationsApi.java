package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.List;

/**
 * The Conversations API (docs/design.md §A5.6), which vLLM lacks and the simulator serves the OpenAI way when its
 * {@link ApiSurface} adds it:
 * create ({@code conv_…} ids, up to 20 initial items), retrieve, update metadata, delete, add and list items, and
 * retrieve or delete one item. An unknown conversation or item answers a 404 in the OpenAI shape.
 *
 * <p>Thread-safe: state lives in the store.
 */
final class ConversationsApi {
    private static final int MAX_ITEMS = 20;

    private final ApiParts parts;
    private final ConversationStore conversations;

    ConversationsApi(ApiParts parts, ConversationStore conversations) {
        this.parts = requireNonNull(parts, "parts");
        this.conversations = requireNonNull(conversations, "conversations");
    }

    void create(Exchange exchange) {
        JsonObject body = exchange.recorded().body().isBlank() ? JsonValue.EMPTY_JSON_OBJECT : exchange.json();
        List<JsonObject> items = items(body, false);
        JsonObject metadata = JsonText.objectField(body, "metadata").orElse(JsonValue.EMPTY_JSON_OBJECT);
        Conversation conversation = new Conversation(parts.ids().conversation(), parts.now(), metadata, items);
        conversations.put(conversation);
        exchange.answer(200, conversation.json());
    }

    void retrieve(Exchange exchange, String id) {
        exchange.answer(200, conversations.require(id, "conversation_id").json());
    }

    void update(Exchange exchange, String id) {
        JsonObject metadata = JsonText.objectField(exchange.json(), "metadata")
                .orElseThrow(() -> RequestRejected.badRequest("metadata: Field required", "metadata"));
        exchange.answer(
                200, conversations.update(id, c -> c.withMetadata(metadata)).json());
    }

    void delete(Exchange exchange, String id) {
        if (conversations.remove(id).isEmpty()) {
            throw RequestRejected.notFound("Conversation with id '" + id + "' not found.", "conversation_id");
        }
        exchange.answer(
                200,
                JsonText.object()
                        .add("id", id)
                        .add("object", "conversation.deleted")
                        .add("deleted", true)
                        .build());
    }

    void addItems(Exchange exchange, String id) {
        conversations.require(id, "conversation_id");
        List<JsonObject> items = items(exchange.json(), true);
        conversations.update(id, c -> c.withItems(items));
        exchange.answer(200, Items.list(items));
    }

    void listItems(Exchange exchange, String id) {
        exchange.answer(
                200, Items.page(conversations.require(id, "conversation_id").items(), exchange));
    }

    void retrieveItem(Exchange exchange, String id, String itemId) {
        exchange.answer(200, item(conversations.require(id, "conversation_id"), itemId));
    }

    /** Deletes one item and answers the parent conversation, as OpenAI does. */
    void deleteItem(Exchange exchange, String id, String itemId) {
        item(conversations.require(id, "conversation_id"), itemId);
        exchange.answer(
                200, conversations.update(id, c -> c.withoutItem(itemId)).json());
    }

    private static JsonObject item(Conversation conversation, String itemId) {
        return conversation.items().stream()
                .filter(item -> itemId.equals(item.getString("id", "")))
                .findFirst()
                .orElseThrow(() -> RequestRejected.notFound("Item with id '" + itemId + "' not found.", "item_id"));
    }

    private List<JsonObject> items(JsonObject body, boolean required) {
        JsonValue raw = body.get("items");
        if (raw == null || raw.getValueType() == JsonValue.ValueType.NULL) {
            if (required) {
                throw RequestRejected.badRequest("items: Field required", "items");
            }
            return List.of();
        }
        if (raw.getValueType() != JsonValue.ValueType.ARRAY) {
            throw RequestRejected.badRequest("items: Input should be a valid list", "items");
        }
        if (raw.asJsonArray().size() > MAX_ITEMS) {
            throw RequestRejected.badRequest("items: at most " + MAX_ITEMS + " items per request", "items");
        }
        return Items.normalize(raw, parts.ids(), "items");
    }
}
