package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.tag.IdKind;

/**
 * One stored id a request names, and the kind its place expects (docs/design.md §5): a response id in a
 * {@code /v1/responses/{id}…} path and in {@code previous_response_id}, a conversation id in a
 * {@code /v1/conversations/{id}…} path and in {@code conversation} / {@code conversation.id}. A tag of the other kind
 * there names no stored object of that place.
 *
 * <p>Thread-safe (immutable).
 *
 * @param expected the kind the place names
 * @param text the id as the client sent it (decoded from JSON, raw from a path)
 */
public record NamedId(IdKind expected, String text) {
    public NamedId {
        requireNonNull(expected, "expected");
        requireNonNull(text, "text");
    }
}
