package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;

/**
 * The request body fields that name a stored object (docs/design.md §5): {@code previous_response_id}, and
 * {@code conversation} as a string or as an object's {@code id}.
 *
 * <p>Thread-safe (immutable).
 */
public enum StoredIdField {
    /** The root member {@code previous_response_id}. */
    PREVIOUS_RESPONSE_ID("previous_response_id", IdKind.RESP),
    /** The root member {@code conversation}, given as a string. */
    CONVERSATION("conversation", IdKind.CONV),
    /** The {@code id} member of the root member {@code conversation}, given as an object. */
    CONVERSATION_ID("conversation.id", IdKind.CONV);

    private final String path;
    private final IdKind kind;

    StoredIdField(String path, IdKind kind) {
        this.path = path;
        this.kind = kind;
    }

    /** The kind of stored object the field names: a tag of the other kind there names nothing. */
    public IdKind kind() {
        return kind;
    }

    /** The field's path as an API error's {@code param} names it: {@code conversation.id}, say. */
    public String path() {
        return path;
    }
}
