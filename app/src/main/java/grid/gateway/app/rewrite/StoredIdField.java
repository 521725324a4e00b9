package grid.gateway.app.rewrite;

/**
 * The request body fields that name a stored object (docs/design.md §5): {@code previous_response_id}, and
 * {@code conversation} as a string or as an object's {@code id}.
 *
 * <p>Thread-safe (immutable).
 */
public enum StoredIdField {
    /** The root member {@code previous_response_id}. */
    PREVIOUS_RESPONSE_ID("previous_response_id"),
    /** The root member {@code conversation}, given as a string. */
    CONVERSATION("conversation"),
    /** The {@code id} member of the root member {@code conversation}, given as an object. */
    CONVERSATION_ID("conversation.id");

    private final String path;

    StoredIdField(String path) {
        this.path = path;
    }

    /** The field's path as an API error's {@code param} names it: {@code conversation.id}, say. */
    public String path() {
        return path;
    }
}
