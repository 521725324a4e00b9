package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.Optional;
import java.util.function.Function;

/**
 * One Responses event stream as vLLM writes it (docs/design.md §A5.3, §A8): {@code response.created},
 * {@code response.in_progress}, {@code response.output_item.added}, {@code response.content_part.added}, one
 * {@code response.output_text.delta} per token, {@code response.output_text.done},
 * {@code response.content_part.done}, {@code response.output_item.done}, {@code response.completed}; each as
 * {@code event: <type>} and a JSON with the same {@code type} and a {@code sequence_number} from 0. No
 * {@code [DONE]}.
 *
 * <p>Not thread-safe; one per request.
 */
final class ResponseEvents {
    private final EventStream events;
    private final String itemId;
    private int sequence;

    ResponseEvents(EventStream events, String itemId) {
        this.events = requireNonNull(events, "events");
        this.itemId = requireNonNull(itemId, "itemId");
    }

    /**
     * Writes the whole stream of {@code run}; {@code finish} turns the finished output message into the final
     * {@code Response} (and stores it) before {@code response.completed} is written.
     */
    void write(Run run, ResponseDraft draft, Function<JsonObject, JsonObject> finish) throws InterruptedException {
        send("response.created", typed("response.created").add("response", draft.pending("in_progress")));
        send("response.in_progress", typed("response.in_progress").add("response", draft.pending("in_progress")));
        send(
                "response.output_item.added",
                typed("response.output_item.added")
                        .add("output_index", 0)
                        .add("item", ResponseDraft.message(itemId, "in_progress", Optional.empty())));
        send(
                "response.content_part.added",
                part("response.content_part.added").add("part", ResponseDraft.outputText("")));
        for (String piece : run.pieces()) {
            run.decode(1);
            send(
                    "response.output_text.delta",
                    part("response.output_text.delta").add("delta", piece).add("logprobs", JsonText.array()));
        }
        String text = run.text();
        send(
                "response.output_text.done",
                part("response.output_text.done").add("text", text).add("logprobs", JsonText.array()));
        send(
                "response.content_part.done",
                part("response.content_part.done").add("part", ResponseDraft.outputText(text)));
        JsonObject message = ResponseDraft.message(itemId, "completed", Optional.of(text));
        send(
                "response.output_item.done",
                typed("response.output_item.done").add("output_index", 0).add("item", message));
        send("response.completed", typed("response.completed").add("response", finish.apply(message)));
        events.end();
    }

    private JsonObjectBuilder typed(String type) {
        return JsonText.object().add("type", type).add("sequence_number", sequence);
    }

    private JsonObjectBuilder part(String type) {
        return typed(type).add("item_id", itemId).add("output_index", 0).add("content_index", 0);
    }

    private void send(String type, JsonObjectBuilder json) throws InterruptedException {
        events.event(type, json.build());
        sequence++;
    }
}
