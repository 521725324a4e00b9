package grid.gateway.enginesim;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders each API's request into the one prompt text the simulated engine sees, a stand-in for vLLM's chat
 * template: each turn as {@code <|role|>\n<text>\n}, then {@code <|assistant|>\n}. Tools come first (as JSON),
 * Anthropic's {@code system} and Responses' {@code instructions} become a leading system turn, media parts count as
 * their compact JSON. Only the simulator's own prefix cache and token counts read it, so it needs to be stable, not
 * faithful.
 *
 * <p>Stateless and thread-safe.
 */
final class PromptText {
    private PromptText() {}

    /** A chat body's {@code messages} (and {@code tools}); a 400 when {@code messages} is missing or empty. */
    static String chat(JsonObject body) {
        JsonArray messages = messages(body);
        StringBuilder text = tools(body);
        for (JsonValue message : messages) {
            JsonObject turn = asObject(message, "messages");
            String role = JsonText.string(turn, "role")
                    .orElseThrow(() -> RequestRejected.badRequest("messages: role is required", "messages"));
            String content = turn.containsKey("content") ? JsonText.content(turn.get("content")) : "";
            JsonValue calls = turn.get("tool_calls");
            turn(text, role, calls == null ? content : content + calls);
        }
        return text.append("<|assistant|>\n").toString();
    }

    /** An Anthropic body's {@code system} and {@code messages}; a 400 when {@code messages} is missing. */
    static String anthropic(JsonObject body) {
        JsonArray messages = messages(body);
        StringBuilder text = tools(body);
        JsonValue system = body.get("system");
        if (system instanceof JsonArray blocks) {
            turn(text, "system", JsonText.content(withoutBillingHeader(blocks)));
        } else if (system != null && system.getValueType() != JsonValue.ValueType.NULL) {
            turn(text, "system", JsonText.content(system));
        }
        for (JsonValue message : messages) {
            JsonObject turn = asObject(message, "messages");
            turn(
                    text,
                    JsonText.string(turn, "role").orElse("user"),
                    JsonText.content(turn.getOrDefault("content", JsonValue.NULL)));
        }
        return text.append("<|assistant|>\n").toString();
    }

    private static JsonArray messages(JsonObject body) {
        JsonArray messages =
                JsonText.arrayField(body, "messages").orElseThrow(() -> RequestRejected.missing("messages", body));
        if (messages.isEmpty()) {
            throw RequestRejected.badRequest("messages: List should have at least 1 item", "messages");
        }
        return messages;
    }

    /** The prompt text so far: a {@code tools} turn when the body declares tools. */
    private static StringBuilder tools(JsonObject body) {
        StringBuilder text = new StringBuilder();
        JsonText.arrayField(body, "tools").ifPresent(tools -> turn(text, "tools", tools.toString()));
        return text;
    }

    /**
     * System blocks without those that start with {@code x-anthropic-billing-header}: vLLM drops them because Claude
     * Code puts a per-request hash there that would defeat prefix caching (docs/design.md §A3.4).
     */
    private static JsonArray withoutBillingHeader(JsonArray blocks) {
        List<JsonValue> kept = new ArrayList<>();
        for (JsonValue block : blocks) {
            if (!(block instanceof JsonObject object
                    && object.getString("text", "").startsWith("x-anthropic-billing-header"))) {
                kept.add(block);
            }
        }
        return JsonText.arrayOf(kept);
    }

    /** Responses items (context, then input) after optional instructions. */
    static String responses(String instructions, List<JsonObject> items) {
        StringBuilder text = new StringBuilder();
        if (!instructions.isEmpty()) {
            turn(text, "system", instructions);
        }
        for (JsonObject item : items) {
            String type = item.getString("type", "message");
            if (type.equals("message")) {
                turn(
                        text,
                        item.getString("role", "user"),
                        JsonText.content(item.getOrDefault("content", JsonValue.NULL)));
            } else if (!type.equals("reasoning")) {
                turn(text, type, item.toString());
            }
        }
        return text.append("<|assistant|>\n").toString();
    }

    /**
     * One Completions prompt: a string as is; a token-id list as four characters per id, so that its simulated
     * token count equals its length.
     */
    static String completion(JsonValue prompt) {
        if (prompt instanceof JsonString string) {
            return string.getString();
        }
        StringBuilder text = new StringBuilder();
        for (JsonValue id : prompt.asJsonArray()) {
            if (!(id instanceof JsonNumber number) || !number.isIntegral()) {
                throw RequestRejected.badRequest("prompt: token ids must be integers", "prompt");
            }
            String base36 = Long.toString(Math.floorMod(number.longValue(), 1_679_616L), 36);
            text.append("0".repeat(4 - base36.length())).append(base36.toUpperCase(Locale.ROOT));
        }
        return text.toString();
    }

    /** The text of the last turn by {@code role} in {@code messages}, the answer's echo; empty when none. */
    static String lastTurn(JsonArray messages, String role) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof JsonObject turn && role.equals(turn.getString("role", "user"))) {
                return JsonText.content(turn.getOrDefault("content", JsonValue.NULL));
            }
        }
        return "";
    }

    private static JsonObject asObject(JsonValue value, String field) {
        if (value instanceof JsonObject object) {
            return object;
        }
        throw RequestRejected.badRequest(field + ": each entry must be an object", field);
    }

    private static void turn(StringBuilder text, String role, String content) {
        text.append("<|").append(role).append("|>\n").append(content).append('\n');
    }
}
