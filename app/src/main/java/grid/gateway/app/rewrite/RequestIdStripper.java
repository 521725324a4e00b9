package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Finds the stored ids a request body of {@code POST /v1/responses}, {@code /v1/responses/input_tokens} or
 * {@code /v1/responses/compact} names (SPEC §5), and rewrites them to the engine's ids, leaving every other byte as
 * it was.
 *
 * <p>{@link #find} reads every root member {@code previous_response_id} (a string) and {@code conversation} (a
 * string, or an object whose {@code id} is a string), wherever it sits and however often it is repeated, and keeps
 * the strings whose decoded text starts with {@code resp_} or {@code conv_}. A body that is not one valid JSON text
 * (RFC 8259, strict UTF-8) or whose root is not an object names none; the caller then forwards it unchanged. One
 * linear pass, and no exception on any bytes.
 *
 * <p>Stateless and thread-safe.
 */
public final class RequestIdStripper {
    /** Creates a stripper; it holds no state, so one serves every request. */
    public RequestIdStripper() {}

    /** The stored ids {@code body} names, with where each sits. */
    public StoredIds find(byte[] body) {
        requireNonNull(body, "body");
        Found found = new Found(body);
        if (!JsonScan.scan(body, 0, body.length, found) || found.ids.isEmpty()) {
            return StoredIds.none();
        }
        return new StoredIds(found.ids);
    }

    /**
     * {@code body} with the content of each of {@code ids} replaced by {@code strip.apply(value)}, written as JSON
     * string content; every other byte unchanged. {@code body} itself when there is nothing to replace.
     *
     * @param ids what {@link #find} returned for this very body
     * @param strip maps a tagged id to the engine's id: the caller resolved every id before
     * @throws IllegalArgumentException if an id's range does not fit in {@code body}
     */
    public byte[] strip(byte[] body, StoredIds ids, UnaryOperator<String> strip) {
        requireNonNull(body, "body");
        requireNonNull(ids, "ids");
        requireNonNull(strip, "strip");
        if (ids.isEmpty()) {
            return body;
        }
        Edits edits = new Edits();
        for (StoredId id : ids.ids()) {
            if (id.end() > body.length) {
                throw new IllegalArgumentException("stored id at " + id.start() + " lies past the body's end");
            }
            edits.add(id.start(), id.end(), JsonStrings.content(strip.apply(id.value())));
        }
        return edits.apply(body, 0, body.length);
    }

    /** Keeps the root's stored-id members as the scan meets them. */
    private static final class Found implements JsonScan.Listener {
        private final byte[] body;
        private final List<StoredId> ids = new ArrayList<>();

        Found(byte[] body) {
            this.body = body;
        }

        @Override
        public void member(JsonScan.Name name, JsonScan.Place place, int start, int end, boolean escaped) {
            StoredIdField field = field(name, place);
            if (field == null) {
                return;
            }
            String value;
            if (escaped) {
                value = JsonStrings.decode(body, start, end);
            } else if (JsonStrings.hasIdPrefix(body, start, end)) {
                value = new String(body, start, end - start, StandardCharsets.UTF_8);
            } else {
                return;
            }
            if (JsonStrings.hasIdPrefix(value)) {
                ids.add(new StoredId(field, value, start, end));
            }
        }

        private static @Nullable StoredIdField field(JsonScan.Name name, JsonScan.Place place) {
            return switch (place) {
                case ROOT ->
                    switch (name) {
                        case PREVIOUS_RESPONSE_ID -> StoredIdField.PREVIOUS_RESPONSE_ID;
                        case CONVERSATION -> StoredIdField.CONVERSATION;
                        default -> null;
                    };
                case CONVERSATION_OBJECT -> name == JsonScan.Name.ID ? StoredIdField.CONVERSATION_ID : null;
                case NESTED -> null;
            };
        }
    }
}
