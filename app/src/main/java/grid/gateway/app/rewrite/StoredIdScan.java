package grid.gateway.app.rewrite;

import grid.gateway.routing.text.JsonListener;
import grid.gateway.routing.text.JsonTokenizer;

/**
 * Finds, in one pass of the shared {@link JsonTokenizer}, the string values of members named {@code id},
 * {@code previous_response_id} or {@code conversation}, with where they sit: in the root object, in the object that
 * is the root's {@code conversation} member, or deeper.
 *
 * <p>The grammar is the tokenizer's (RFC 8259, strict UTF-8, at most {@link JsonTokenizer#MAX_DEPTH} levels, the
 * same limit as the keyer's): a text it refuses, a too-deep one included, is not scanned. Reports arrive before the
 * end of the text is checked, so a caller keeps them only when {@link #scan} returns true. A member name written with
 * escapes ({@code "\u0069d"}) is decoded before it is compared, as the engine's parser would; the caller says whether
 * names match exactly (a request, as the engine reads it) or in any case (an answer, as a client may read it:
 * {@link IdNames}). Nothing here throws on any text.
 *
 * <p>Not thread-safe; one per text.
 */
final class StoredIdScan implements JsonListener {
    /** The member names whose string values are reported. */
    enum Name {
        ID,
        PREVIOUS_RESPONSE_ID,
        CONVERSATION,
        /** Any other member, or a value that is no member's (the root, an array element). */
        OTHER
    }

    /** Where a reported member sits. */
    enum Place {
        /** A member of the root object. */
        ROOT,
        /** A member of the object that is the value of the root object's {@code conversation} member. */
        CONVERSATION_OBJECT,
        /** Anywhere else. */
        NESTED
    }

    /** Receives the reported string values. */
    @FunctionalInterface
    interface Listener {
        /**
         * One string value of a member with an interesting name.
         *
         * @param start the index of its first content byte, just after the opening quote
         * @param end the index of its closing quote
         * @param escaped whether the content holds a backslash escape
         */
        void member(Name name, Place place, int start, int end, boolean escaped);
    }

    private final byte[] b;
    private final IdNames.Match match;
    private final Listener listener;
    /** The name of the member whose value comes next; OTHER once that value has been met. */
    private Name pending = Name.OTHER;
    /** Whether the container open at depth 1 is the object that is the root's {@code conversation} member. */
    private boolean inConversationObject;

    private StoredIdScan(byte[] b, IdNames.Match match, Listener listener) {
        this.b = b;
        this.match = match;
        this.listener = listener;
    }

    /**
     * Whether {@code b[from, to)} is one JSON text; reports its interesting members to {@code listener} on the way,
     * their names compared as {@code match} says.
     */
    static boolean scan(byte[] b, int from, int to, IdNames.Match match, Listener listener) {
        return JsonTokenizer.tokenize(b, from, to, new StoredIdScan(b, match, listener)) == JsonTokenizer.Outcome.VALID;
    }

    @Override
    public void open(int at, boolean object, int depth) {
        if (depth == 1) {
            inConversationObject = object && pending == Name.CONVERSATION;
        }
        pending = Name.OTHER;
    }

    @Override
    public void name(int start, int end, boolean escaped, int depth) {
        pending = IdNames.classify(b, start + 1, end - 1, escaped, match);
    }

    @Override
    public void string(int start, int end, boolean escaped, int depth) {
        if (pending != Name.OTHER) {
            listener.member(pending, place(depth), start + 1, end - 1, escaped);
            pending = Name.OTHER;
        }
    }

    @Override
    public void scalar(int start, int end, int depth) {
        pending = Name.OTHER;
    }

    private Place place(int depth) {
        if (depth == 1) {
            return Place.ROOT;
        }
        return depth == 2 && inConversationObject ? Place.CONVERSATION_OBJECT : Place.NESTED;
    }
}
