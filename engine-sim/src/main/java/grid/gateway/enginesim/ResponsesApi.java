package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /v1/responses} and {@code POST /v1/responses/input_tokens} (docs/design.md §A4, §A5, §A6.1), as vLLM
 * with its store enabled, plus OpenAI's {@code conversation} when the Conversations API is on ({@link ApiSurface}):
 * {@code store} defaults to true;
 * {@code previous_response_id} must name a response stored by this simulator and {@code conversation} (a string or
 * {@code {id}}) a conversation of this simulator, else 404; both at once is a 400. The prompt replays the earlier
 * context, so a chain of responses hits the prefix cache. {@code background:true} answers {@code queued} at once and
 * runs on its own thread, so it can be cancelled.
 *
 * <p>Thread-safe: state lives in the stores.
 */
final class ResponsesApi {
    private final ApiParts parts;
    private final ResponseStore responses;
    private final ConversationStore conversations;
    private final InFlight inFlight;

    ResponsesApi(ApiParts parts, ResponseStore responses, ConversationStore conversations, InFlight inFlight) {
        this.parts = requireNonNull(parts, "parts");
        this.responses = requireNonNull(responses, "responses");
        this.conversations = requireNonNull(conversations, "conversations");
        this.inFlight = requireNonNull(inFlight, "inFlight");
    }

    /** What one create request resolved to before it runs. */
    private record Resolved(ResponseDraft draft, Prompt prompt, List<JsonObject> context, List<JsonObject> input) {}

    void create(Exchange exchange) throws InterruptedException {
        JsonObject body = exchange.json();
        Resolved resolved = resolve(body, parts.ids().response());
        boolean store = JsonText.flag(body, "store", true);
        String itemId = parts.ids().message();
        if (JsonText.flag(body, "background", false) && !JsonText.flag(body, "stream", false)) {
            if (!store) {
                throw RequestRejected.invalid("background can only be used when `store` is true", "background");
            }
            startBackground(exchange.faults(), resolved, itemId);
            exchange.answer(200, resolved.draft().pending("queued"));
            return;
        }
        try (Run run = parts.engine().start(resolved.prompt(), exchange.faults())) {
            if (JsonText.flag(body, "stream", false)) {
                new ResponseEvents(exchange.stream(), parts.ids().streamedItem(), itemId)
                        .write(run, resolved.draft(), message -> finish(resolved, run, message, store, false));
            } else {
                run.decodeAll();
                JsonObject message = ResponseDraft.message(itemId, "completed", Optional.of(run.text()));
                JsonObject answer = finish(resolved, run, message, store, false);
                // Done before the answer leaves, as an engine is: a scrape after the answer never counts it running.
                run.close();
                exchange.answer(200, answer);
            }
        }
    }

    void inputTokens(Exchange exchange) {
        JsonObject body = exchange.json();
        Resolved resolved = resolve(body, "input_tokens");
        int tokens = parts.engine().tokens(resolved.prompt().text());
        exchange.answer(
                200,
                JsonText.object()
                        .add("object", "response.input_tokens")
                        .add("input_tokens", tokens)
                        .build());
    }

    private Resolved resolve(JsonObject body, String id) {
        String model = parts.catalog().resolve(body);
        Optional<String> previous = JsonText.string(body, "previous_response_id");
        // vLLM has no conversations and ignores the field; the OpenAI addition reads it.
        Optional<String> conversation = parts.api().conversations() ? conversationId(body) : Optional.empty();
        if (previous.isPresent() && conversation.isPresent()) {
            throw RequestRejected.invalid(
                    "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or"
                            + " 'conversation'.",
                    "conversation");
        }
        List<JsonObject> context = previous.map(
                        p -> responses.require(p, "previous_response_id").context())
                .or(() -> conversation.map(
                        c -> conversations.require(c, "conversation").items()))
                .orElse(List.of());
        JsonValue rawInput = body.getOrDefault("input", JsonValue.EMPTY_JSON_ARRAY);
        List<JsonObject> input = Items.normalize(rawInput, parts.ids(), "input");
        List<JsonObject> all = new ArrayList<>(context);
        all.addAll(input);
        Prompt prompt = new Prompt(
                model,
                PromptText.responses(JsonText.string(body, "instructions").orElse(""), all),
                ModelCatalog.salt(body),
                ModelCatalog.maxTokens(body, "max_output_tokens"),
                Items.lastUserText(all));
        ResponseDraft draft = new ResponseDraft(id, parts.now(), model, body, previous, conversation);
        return new Resolved(draft, prompt, context, input);
    }

    /**
     * The finished response; stored when {@code store} (a background one only if not cancelled meanwhile), its turn
     * appended to its conversation.
     */
    private JsonObject finish(Resolved resolved, Run run, JsonObject message, boolean store, boolean background) {
        String id = resolved.draft().id();
        JsonObject response = resolved.draft().finished(run, message);
        List<JsonObject> turn = new ArrayList<>(resolved.input());
        turn.add(message);
        if (background && responses.status(id).filter(s -> s.equals("queued")).isEmpty()) {
            return response;
        }
        if (store) {
            List<JsonObject> context = new ArrayList<>(resolved.context());
            context.addAll(turn);
            StoredResponse stored = new StoredResponse(response, resolved.input(), context);
            if (background) {
                responses.finish(id, stored);
            } else {
                responses.put(id, stored);
            }
        }
        resolved.draft().conversation().ifPresent(c -> conversations.append(c, turn));
        return response;
    }

    private void startBackground(FaultPlan faults, Resolved resolved, String itemId) {
        String id = resolved.draft().id();
        responses.put(id, new StoredResponse(resolved.draft().pending("queued"), resolved.input(), resolved.context()));
        inFlight.background(id, () -> {
            try (Run run = parts.engine().start(resolved.prompt(), faults)) {
                run.decodeAll();
                finish(resolved, run, ResponseDraft.message(itemId, "completed", Optional.of(run.text())), true, true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // cancelled, or the simulator closed
            }
        });
    }

    /** The conversation a body names: a string id, or an object with {@code id}. */
    private static Optional<String> conversationId(JsonObject body) {
        JsonValue value = body.get("conversation");
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return Optional.empty();
        }
        if (value instanceof JsonString id) {
            return Optional.of(id.getString());
        }
        if (value instanceof JsonObject object && object.get("id") instanceof JsonString id) {
            return Optional.of(id.getString());
        }
        throw RequestRejected.badRequest("conversation: expected an id or {\"id\": …}", "conversation");
    }
}
