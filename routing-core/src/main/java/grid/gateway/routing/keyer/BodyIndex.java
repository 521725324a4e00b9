package grid.gateway.routing.keyer;

import grid.gateway.routing.text.JsonListener;
import grid.gateway.routing.text.JsonTokenizer;
import grid.gateway.routing.text.PythonBytes;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The keyer's first pass: the shared {@link JsonTokenizer} checks that a body is one JSON text, and this listener
 * records on the way where the root object's members and the long strings are.
 *
 * <p>Not thread-safe; one per body.
 */
final class BodyIndex implements JsonListener {
    /** Strings at least this long (as sent, quotes included) are indexed so later passes skip them in one step. */
    static final int LONG_STRING = 512;

    private final byte[] body;
    private @Nullable Members root;
    /** Pairs (start, end) of long strings, in text order. */
    private int[] longStrings = new int[0];

    private int longCount;
    private int keyStart;
    private int keyEnd;
    private int valueStart;

    private BodyIndex(byte[] body) {
        this.body = body;
    }

    /**
     * Validates a whole body whose root must be an object, after a UTF-8 byte order mark if it starts with one.
     *
     * @throws NoKeysSignal with {@code INVALID_JSON}, {@code PARSER_LIMIT} or {@code NOT_AN_OBJECT}
     */
    static ValidatedBody validate(byte[] body) {
        BodyIndex index = new BodyIndex(body);
        // A UTF-8 byte order mark is skipped, as Python's json.loads skips it (and so vLLM serves such a body).
        switch (JsonTokenizer.tokenize(body, PythonBytes.utf8Start(body), body.length, index)) {
            case VALID -> {}
            case INVALID -> throw new NoKeysSignal(NoKeysReason.INVALID_JSON);
            case TOO_DEEP -> throw new NoKeysSignal(NoKeysReason.PARSER_LIMIT);
        }
        Members root = index.root;
        if (root == null) {
            throw new NoKeysSignal(NoKeysReason.NOT_AN_OBJECT);
        }
        JsonNav nav = new JsonNav(body, Arrays.copyOf(index.longStrings, index.longCount * 2));
        return new ValidatedBody(nav, root);
    }

    @Override
    public void open(int at, boolean object, int depth) {
        if (depth == 0) {
            root = object ? new Members(body) : null;
        } else if (depth == 1) {
            valueStart = at;
        }
    }

    @Override
    public void close(int end, int depth) {
        if (depth == 1 && root != null) {
            root.add(keyStart, keyEnd, valueStart, end);
        }
    }

    @Override
    public void name(int start, int end, boolean escaped, int depth) {
        if (end - start >= LONG_STRING) {
            indexLongString(start, end);
        }
        if (depth == 1) {
            keyStart = start;
            keyEnd = end;
        }
    }

    @Override
    public void string(int start, int end, boolean escaped, int depth) {
        if (end - start >= LONG_STRING) {
            indexLongString(start, end);
        }
        scalar(start, end, depth);
    }

    @Override
    public void scalar(int start, int end, int depth) {
        if (depth == 1 && root != null) {
            root.add(keyStart, keyEnd, start, end);
        }
    }

    private void indexLongString(int start, int end) {
        if (longCount * 2 == longStrings.length) {
            longStrings = Arrays.copyOf(longStrings, Math.max(16, longStrings.length * 2));
        }
        longStrings[longCount * 2] = start;
        longStrings[longCount * 2 + 1] = end;
        longCount++;
    }
}
