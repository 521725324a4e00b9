package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A stored conversation (docs/design.md §A5.6): its id, creation time, metadata and items, oldest first.
 *
 * <p>Immutable; a change stores a replacement.
 *
 * @param id the {@code conv_…} id
 * @param createdAt seconds since the epoch
 * @param metadata the metadata object
 * @param items the items, oldest first
 */
record Conversation(String id, long createdAt, JsonObject metadata, List<JsonObject> items) {
    Conversation {
        requireNonNull(id, "id");
        requireNonNull(metadata, "metadata");
        items = List.copyOf(items);
    }

    /** The {@code Conversation} object. */
    JsonObject json() {
        return JsonText.object()
                .add("id", id)
                .add("object", "conversation")
                .add("created_at", createdAt)
                .add("metadata", metadata)
                .build();
    }

    Conversation withMetadata(JsonObject replacement) {
        return new Conversation(id, createdAt, replacement, items);
    }

    Conversation withItems(List<JsonObject> added) {
        List<JsonObject> all = new ArrayList<>(items);
        all.addAll(added);
        return new Conversation(id, createdAt, metadata, all);
    }

    Conversation withoutItem(String itemId) {
        List<JsonObject> kept = new ArrayList<>(items);
        kept.removeIf(item -> itemId.equals(item.getString("id", "")));
        return new Conversation(id, createdAt, metadata, kept);
    }
}
