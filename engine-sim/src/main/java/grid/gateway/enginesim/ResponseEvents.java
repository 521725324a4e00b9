package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * One Responses event stream as vLLM writes it (docs/design.md §A5.3, §A8; {@code testdata/vllm/responses_stream*}):
 * {@code response.created}, {@code response.in_progress}, {@code response.output_item.added},
 * {@code response.content_part.added}, one {@code response.output_text.delta} per token,
 * {@code response.output_text.done}, {@code response.content_part.done}, {@code response.output_item.done},
 * {@code response.completed}; each as {@code event: <type>} and a JSON with the same {@code type} and a
 * {@code sequence_number} from 0, its top-level keys in alphabetical order. No {@code [DONE]}. While it streams, the message item is known by a bare hex id;
 * the completed response names it {@code msg_…}, as vLLM's does.
 *
 * <p>Not thread-safe; one per request.
 */
final class ResponseEvents {
    private final EventStream events;
    private final String streamedId;
    private final String itemId;
    private int sequence;

    /** A stream whose message item is {@code streamedId} in its events and {@code itemId} once completed. */
    ResponseEvents(EventStream events, String streamedId, String itemId) {
        this.events = requireNonNull(events, "events");
        this.streamedId = requireNonNull(streamedId, "streamedId");
        this.itemId = requireNonNull(itemId, "itemId");
    }

    /**
     * Writes the whole stream of {@code run}; {@code finish} turns the finished output message into the final
     * {@code Response} (and stores it) before {@code response.completed} is written.
     */
    void write(Run run, ResponseDraft draft, Function<JsonObject, JsonObject> finish) throws InterruptedException {
        send("response.created", JsonText.object().add("response", draft.pending("in_progress")));
        send("response.in_progress", JsonText.object().add("response", draft.pending("in_progress")));
        send(
                "response.output_item.added",
                JsonText.object()
                        .add("item", ResponseDraft.message(streamedId, "in_progress", Optional.empty()))
                        .add("output_index", 0));
        send(
                "response.content_part.added",
                part().add("part", ResponseDraft.outputText("", JsonValue.EMPTY_JSON_ARRAY)));
        for (String piece : run.pieces()) {
            run.nextToken();
            send(
                    "response.output_text.delta",
                    JsonText.object()
                            .add("content_index", 0)
                            .add("delta", piece)
                            .add("item_id", streamedId)
                            .add("logprobs", JsonText.array())
                            .add("output_index", 0));
        }
        String text = run.text();
        send(
                "response.output_text.done",
                part().add("logprobs", JsonText.array()).add("text", text));
        send("response.content_part.done", part().add("part", ResponseDraft.outputText(text, JsonValue.NULL)));
        JsonObject done = ResponseDraft.message(streamedId, "completed", Optional.of(text));
        send(
                "response.output_item.done",
                JsonText.object()
                        .add("item", JsonText.with(done, "summary", JsonValue.EMPTY_JSON_ARRAY))
                        .add("output_index", 0));
        JsonObject message = ResponseDraft.message(itemId, "completed", Optional.of(text));
        send("response.completed", JsonText.object().add("response", finish.apply(message)));
        events.end();
    }

    private JsonObjectBuilder part() {
        return JsonText.object()
                .add("content_index", 0)
                .add("item_id", streamedId)
                .add("output_index", 0);
    }

    /** Writes one event, its top-level keys in alphabetical order as vLLM writes them. */
    private void send(String type, JsonObjectBuilder json) throws InterruptedException {
        JsonObject event =
                json.add("sequence_number", sequence).add("type", type).build();
        JsonObjectBuilder sorted = JsonText.object();
        new TreeMap<>(event).forEach(sorted::add);
        events.event(type, sorted.build());
        sequence++;
    }
}
