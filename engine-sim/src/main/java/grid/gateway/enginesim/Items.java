package grid.gateway.enginesim;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Responses and Conversations items (docs/design.md §A4.2, §A5.6): input normalized to stored items with ids, and
 * the paged list shape {@code {object:"list", data, first_id, last_id, has_more}}.
 *
 * <p>A string input is one user message; a message in the easy form ({@code role} and string {@code content}, no
 * {@code type}) gets {@code type:"message"}, {@code content} as {@code input_text} (or {@code output_text} for the
 * assistant) parts, {@code status:"completed"} and a {@code msg_…} id. Other items keep their fields and get an id
 * with their type's prefix when they have none.
 *
 * <p>Stateless and thread-safe.
 */
final class Items {
    private static final Map<String, String> PREFIXES = Map.of(
            "function_call", "fc_",
            "function_call_output", "fco_",
            "reasoning", "rs_",
            "custom_tool_call", "ctc_",
            "compaction", "cmp_");

    private Items() {}

    /** The items of an {@code input} value; a 400 unless it is a string or a list of objects. */
    static List<JsonObject> normalize(JsonValue input, Ids ids, String field) {
        if (input instanceof JsonString text) {
            return List.of(message(
                    JsonText.object().add("role", "user").add("content", text).build(), ids));
        }
        if (!(input instanceof JsonArray array)) {
            throw RequestRejected.badRequest(field + ": Input should be a valid string or list", field);
        }
        List<JsonObject> items = new ArrayList<>();
        for (JsonValue value : array) {
            if (!(value instanceof JsonObject item)) {
                throw RequestRejected.badRequest(field + ": each item must be an object", field);
            }
            String type = item.getString("type", item.containsKey("role") ? "message" : "");
            if (type.isEmpty()) {
                throw RequestRejected.badRequest(field + ": item without type or role", field);
            }
            items.add(type.equals("message") ? message(item, ids) : withId(item, ids, type));
        }
        return items;
    }

    /** The text of the last user message among {@code items}; empty when none. */
    static String lastUserText(List<JsonObject> items) {
        for (int i = items.size() - 1; i >= 0; i--) {
            JsonObject item = items.get(i);
            if (item.getString("type", "").equals("message")
                    && item.getString("role", "").equals("user")) {
                return JsonText.content(item.getOrDefault("content", JsonValue.NULL));
            }
        }
        return "";
    }

    /**
     * One page of {@code items} (stored oldest first) for query parameters {@code limit} (1–100, default 20),
     * {@code order} ({@code asc} or {@code desc}, default desc) and {@code after} (an item id).
     */
    static JsonObject page(List<JsonObject> items, Exchange exchange) {
        int limit = exchange.query("limit").map(Items::limit).orElse(20);
        boolean ascending = exchange.query("order").map(o -> o.equals("asc")).orElse(false);
        List<JsonObject> ordered = new ArrayList<>(items);
        if (!ascending) {
            ordered = ordered.reversed();
        }
        int from = 0;
        String after = exchange.query("after").orElse("");
        for (int i = 0; i < ordered.size() && !after.isEmpty(); i++) {
            if (after.equals(ordered.get(i).getString("id", ""))) {
                from = i + 1;
            }
        }
        List<JsonObject> data = ordered.subList(from, Math.min(ordered.size(), from + limit));
        return list(data, from + data.size() < ordered.size());
    }

    /** The list shape of items just added (for {@code POST /v1/conversations/{id}/items}). */
    static JsonObject list(List<JsonObject> items) {
        return list(items, false);
    }

    private static JsonObject list(List<JsonObject> items, boolean hasMore) {
        JsonObjectBuilder list = JsonText.object().add("object", "list").add("data", JsonText.arrayOf(items));
        if (items.isEmpty()) {
            list.addNull("first_id").addNull("last_id");
        } else {
            list.add("first_id", items.getFirst().getString("id", ""))
                    .add("last_id", items.getLast().getString("id", ""));
        }
        return list.add("has_more", hasMore).build();
    }

    private static int limit(String value) {
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= 100) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw RequestRejected.badRequest("limit: expected an integer from 1 to 100", "limit");
    }

    private static JsonObject message(JsonObject item, Ids ids) {
        String role = item.getString("role", "user");
        JsonValue content = item.getOrDefault("content", JsonValue.NULL);
        if (content instanceof JsonString text) {
            String part = role.equals("assistant") ? "output_text" : "input_text";
            JsonObjectBuilder textPart = JsonText.object().add("type", part).add("text", text);
            if (role.equals("assistant")) {
                textPart.add("annotations", JsonText.array());
            }
            content = JsonText.array().add(textPart).build();
        }
        return JsonText.object()
                .add("id", item.getString("id", ids.message()))
                .add("type", "message")
                .add("role", role)
                .add("content", content)
                .add("status", item.getString("status", "completed"))
                .build();
    }

    private static JsonObject withId(JsonObject item, Ids ids, String type) {
        if (item.get("id") instanceof JsonString) {
            return item;
        }
        JsonObjectBuilder withId = JsonText.object().add("id", ids.item(PREFIXES.getOrDefault(type, "item_")));
        item.forEach(withId::add);
        return withId.build();
    }
}
