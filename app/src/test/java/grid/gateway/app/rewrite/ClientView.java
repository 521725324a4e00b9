package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * What a client reads of a stream or a body, written from the specifications and not from the taggers: the events a
 * WHATWG event-stream reader dispatches, and the JSON value a strict parser reads of an event's data, with the stored
 * ids it should see tagged.
 */
final class ClientView {
    private static final Set<String> ID_NAMES = Set.of("id", "previous_response_id", "conversation");

    /** One dispatched event: its type, last event id and data, as the WHATWG reader hands them to a listener. */
    record Event(String type, String lastEventId, String data) {}

    private ClientView() {}

    /**
     * The events a WHATWG event-stream reader dispatches from {@code stream}: UTF-8 decoded (invalid bytes replaced),
     * one leading byte order mark dropped, lines ended by CRLF, LF or CR, an event dispatched at a blank line, a
     * partial event at the end discarded.
     */
    static List<Event> events(byte[] stream) {
        String text = new String(stream, StandardCharsets.UTF_8);
        if (text.startsWith("\ufeff")) {
            text = text.substring(1);
        }
        List<Event> events = new ArrayList<>();
        StringBuilder data = new StringBuilder();
        String type = "";
        String lastEventId = "";
        int i = 0;
        while (i < text.length()) {
            int end = i;
            while (end < text.length() && text.charAt(end) != '\r' && text.charAt(end) != '\n') {
                end++;
            }
            if (end == text.length()) {
                break; // no line end: the rest is not a line, and an event it would end is discarded
            }
            String line = text.substring(i, end);
            i = end + (text.charAt(end) == '\r' && end + 1 < text.length() && text.charAt(end + 1) == '\n' ? 2 : 1);
            if (line.isEmpty()) {
                if (!data.isEmpty()) {
                    events.add(new Event(type, lastEventId, data.substring(0, data.length() - 1)));
                }
                data.setLength(0);
                type = "";
                continue;
            }
            if (line.startsWith(":")) {
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "data" -> data.append(value).append('\n');
                case "event" -> type = value;
                case "id" -> lastEventId = value.indexOf('\0') < 0 ? value : lastEventId;
                default -> {}
            }
        }
        return events;
    }

    /** The JSON value a strict parser reads of {@code text}; empty when it is not one JSON text. */
    static Optional<JsonValue> json(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return Optional.of(reader.readValue());
        } catch (JsonException | IllegalStateException notJson) {
            return Optional.empty();
        }
    }

    /**
     * {@code value} with every string of a member named {@code id}, {@code previous_response_id} or
     * {@code conversation}, in any letter case as Go's and .NET's parsers match names, that starts with an id prefix mapped by {@code tag}, at any depth.
     */
    static JsonValue tagged(JsonValue value, UnaryOperator<String> tag) {
        if (value instanceof JsonObject object) {
            JsonObjectBuilder out = Json.createObjectBuilder();
            object.forEach((name, member) -> {
                if (ID_NAMES.stream().anyMatch(name::equalsIgnoreCase)
                        && member instanceof JsonString s
                        && IdKind.of(s.getString()).isPresent()) {
                    out.add(name, tag.apply(s.getString()));
                } else {
                    out.add(name, tagged(member, tag));
                }
            });
            return out.build();
        }
        if (value instanceof JsonArray array) {
            JsonArrayBuilder out = Json.createArrayBuilder();
            array.forEach(element -> out.add(tagged(element, tag)));
            return out.build();
        }
        return value;
    }
}
