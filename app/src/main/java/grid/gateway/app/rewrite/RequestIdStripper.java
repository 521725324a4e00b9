package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.text.JsonEscape;
import grid.gateway.routing.text.PythonBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Finds the stored ids a request body of {@code POST /v1/responses}, {@code /v1/responses/input_tokens} or
 * {@code /v1/responses/compact} names (docs/design.md §5), and rewrites them to the engine's ids, leaving every other byte as
 * it was.
 *
 * <p>{@link #read} reads every root member {@code previous_response_id} (a string) and {@code conversation} (a
 * string, or an object whose {@code id} is a string), wherever it sits and however often it is repeated, and keeps
 * every such string, whatever its prefix: {@code msg_x}, {@code Resp_x} or {@code x} names a stored object as surely
 * as a tag does, and the router answers 404 for it (docs/design.md §5: an untagged id, wherever it appears). A body that is
 * not one valid JSON text (RFC 8259, strict UTF-8 after an optional UTF-8 byte order mark: no UTF-16 or UTF-32, no
 * {@code NaN}) or nests
 * deeper than the keyer's 256 levels (the one {@link grid.gateway.routing.text.JsonTokenizer} both use) is
 * unreadable: an engine's more lenient parser might still find an id in it, so the caller refuses it. One linear
 * pass, and no exception on any bytes.
 *
 * <p>Stateless and thread-safe.
 */
public final class RequestIdStripper {
    /** Creates a stripper; it holds no state, so one serves every request. */
    public RequestIdStripper() {}

    /** The stored ids {@code body} names, with where each sits; empty when the strict scan rejects the body. */
    public Optional<StoredIds> read(byte[] body) {
        requireNonNull(body, "body");
        Found found = new Found(body);
        // A UTF-8 byte order mark is skipped, as Python's json (the engine's parser) skips it: the text after it is
        // what the engine reads, so the strict scan still sees every id the engine will.
        if (!StoredIdScan.scan(body, PythonBytes.utf8Start(body), body.length, IdNames.Match.EXACT, found)) {
            return Optional.empty();
        }
        return Optional.of(found.ids.isEmpty() ? StoredIds.none() : new StoredIds(found.ids));
    }

    /** The stored ids {@code body} names; none when the strict scan rejects the body. */
    public StoredIds find(byte[] body) {
        return read(body).orElse(StoredIds.none());
    }

    /**
     * {@code body} with the content of each of {@code ids} replaced by {@code strip.apply(value)}, written as JSON
     * string content, where that changes the value; every other byte unchanged. {@code body} itself when there is nothing to replace.
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
            String engineId = strip.apply(id.value());
            if (!engineId.equals(id.value())) {
                edits.add(id.start(), id.end(), JsonStrings.content(engineId));
            }
        }
        return edits.apply(body, 0, body.length);
    }

    /** Keeps the root's stored-id members as the scan meets them. */
    private static final class Found implements StoredIdScan.Listener {
        private final byte[] body;
        private final List<StoredId> ids = new ArrayList<>();

        Found(byte[] body) {
            this.body = body;
        }

        @Override
        public void member(StoredIdScan.Name name, StoredIdScan.Place place, int start, int end, boolean escaped) {
            StoredIdField field = field(name, place);
            if (field == null) {
                return;
            }
            String value = escaped
                    ? JsonEscape.text(body, start, end)
                    : new String(body, start, end - start, StandardCharsets.UTF_8);
            ids.add(new StoredId(field, value, start, end));
        }

        private static @Nullable StoredIdField field(StoredIdScan.Name name, StoredIdScan.Place place) {
            return switch (place) {
                case ROOT ->
                    switch (name) {
                        case PREVIOUS_RESPONSE_ID -> StoredIdField.PREVIOUS_RESPONSE_ID;
                        case CONVERSATION -> StoredIdField.CONVERSATION;
                        default -> null;
                    };
                case CONVERSATION_OBJECT -> name == StoredIdScan.Name.ID ? StoredIdField.CONVERSATION_ID : null;
                case NESTED -> null;
            };
        }
    }
}
