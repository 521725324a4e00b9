package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * Which endpoint serves which method and path (docs/design.md §A1–§A6), ids taken from the raw path segments. The
 * Conversations API and {@code DELETE /v1/responses/{id}} are there only when the {@link ApiSurface} adds them
 * (vLLM has neither: 404 and 405).
 *
 * <p>Immutable and thread-safe.
 */
final class EndpointTable {
    private final ChatApi chat;
    private final CompletionsApi completions;
    private final MessagesApi messages;
    private final ResponsesApi responses;
    private final ResponseEndpoints stored;
    private final ConversationsApi conversations;
    private final ApiParts parts;

    /** The APIs an {@link EndpointTable} dispatches to. */
    record Apis(
            ChatApi chat,
            CompletionsApi completions,
            MessagesApi messages,
            ResponsesApi responses,
            ResponseEndpoints stored,
            ConversationsApi conversations) {}

    EndpointTable(Apis apis, ApiParts parts) {
        this.chat = requireNonNull(apis.chat(), "chat");
        this.completions = requireNonNull(apis.completions(), "completions");
        this.messages = requireNonNull(apis.messages(), "messages");
        this.responses = requireNonNull(apis.responses(), "responses");
        this.stored = requireNonNull(apis.stored(), "stored");
        this.conversations = requireNonNull(apis.conversations(), "conversations");
        this.parts = requireNonNull(parts, "parts");
    }

    /** The endpoints of {@code path} by method; empty when the path is not served. */
    Map<String, EngineRoutes.Endpoint> find(String path) {
        String[] s = path.split("/", -1);
        if (s.length < 3 || !s[0].isEmpty() || !s[1].equals("v1")) {
            return path.equals("/health") ? Map.of("GET", Exchange::empty) : Map.of();
        }
        if (s[2].equals("conversations") && !parts.api().conversations()) {
            return Map.of();
        }
        return switch (s.length) {
            case 3 -> top(s[2]);
            case 4 -> second(s[2], s[3]);
            case 5 -> third(s[2], s[3], s[4]);
            case 6 -> s[2].equals("conversations") && s[4].equals("items") ? conversationItem(s[3], s[5]) : Map.of();
            default -> Map.of();
        };
    }

    private Map<String, EngineRoutes.Endpoint> top(String name) {
        return switch (name) {
            case "models" ->
                Map.of(
                        "GET",
                        e -> e.answer(
                                200,
                                parts.catalog().list(parts.now(), parts.ids().permission())));
            case "completions" -> Map.of("POST", completions::create);
            case "messages" -> Map.of("POST", messages::create);
            case "responses" -> Map.of("POST", responses::create);
            case "conversations" -> Map.of("POST", conversations::create);
            default -> Map.of();
        };
    }

    private Map<String, EngineRoutes.Endpoint> second(String name, String id) {
        if (id.isEmpty()) {
            return Map.of();
        }
        return switch (name) {
            case "chat" -> id.equals("completions") ? Map.of("POST", chat::create) : Map.of();
            case "messages" -> id.equals("count_tokens") ? Map.of("POST", messages::countTokens) : Map.of();
            case "responses" -> storedResponse(id);
            case "conversations" ->
                Map.of(
                        "GET", e -> conversations.retrieve(e, id),
                        "POST", e -> conversations.update(e, id),
                        "DELETE", e -> conversations.delete(e, id));
            default -> Map.of();
        };
    }

    private Map<String, EngineRoutes.Endpoint> storedResponse(String id) {
        if (id.equals("input_tokens")) {
            return Map.of("POST", responses::inputTokens);
        }
        return parts.api().deleteStoredResponses()
                ? Map.of("GET", e -> stored.retrieve(e, id), "DELETE", e -> stored.delete(e, id))
                : Map.of("GET", e -> stored.retrieve(e, id));
    }

    private Map<String, EngineRoutes.Endpoint> third(String name, String id, String action) {
        if (id.isEmpty()) {
            return Map.of();
        }
        return switch (name + "/" + action) {
            case "responses/cancel" -> Map.of("POST", e -> stored.cancel(e, id));
            case "responses/input_items" -> Map.of("GET", e -> stored.inputItems(e, id));
            case "conversations/items" ->
                Map.of("GET", e -> conversations.listItems(e, id), "POST", e -> conversations.addItems(e, id));
            default -> Map.of();
        };
    }

    private Map<String, EngineRoutes.Endpoint> conversationItem(String id, String itemId) {
        if (id.isEmpty() || itemId.isEmpty()) {
            return Map.of();
        }
        return Map.of(
                "GET", e -> conversations.retrieveItem(e, id, itemId),
                "DELETE", e -> conversations.deleteItem(e, id, itemId));
    }
}
