package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.tag.IdKind;

/**
 * The stored-id segment of a request path, raw as the client sent it, and where it sits in the path.
 *
 * <p>Thread-safe (immutable).
 *
 * @param kind what the path names: {@link IdKind#RESP} under {@code /v1/responses/}, {@link IdKind#CONV} under
 *     {@code /v1/conversations/}; the segment itself may start with anything
 * @param value the segment, not percent-decoded
 * @param start the index of its first char in the raw path
 * @param end the index just after its last char
 */
public record PathId(IdKind kind, String value, int start, int end) {
    public PathId {
        requireNonNull(kind, "kind");
        requireNonNull(value, "value");
        if (start < 0 || end - start != value.length()) {
            throw new IllegalArgumentException("range [" + start + ", " + end + ") does not hold the segment");
        }
    }
}
