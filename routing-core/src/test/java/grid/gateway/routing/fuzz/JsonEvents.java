package grid.gateway.routing.fuzz;

import grid.gateway.routing.text.JsonListener;
import java.util.ArrayList;
import java.util.List;

/**
 * Test listener: records every event of the tokenizer as {@code (kind, start, end, depth)} rows and checks, as they
 * arrive, the invariants any text must keep: events move forward through the text, stay inside the range read, and
 * nest (every close matches an open at the same depth, never deeper than the limit).
 */
final class JsonEvents implements JsonListener {
    static final int OPEN = 0;
    static final int CLOSE = 1;
    static final int NAME = 2;
    static final int STRING = 3;
    static final int SCALAR = 4;

    private final int from;
    private final int to;
    private final List<int[]> rows = new ArrayList<>();
    private int position;
    private int open;

    JsonEvents(int from, int to) {
        this.from = from;
        this.to = to;
        this.position = from;
    }

    List<int[]> rows() {
        return rows;
    }

    /** Open containers not yet closed. */
    int unclosed() {
        return open;
    }

    @Override
    public void open(int at, boolean object, int depth) {
        check(depth == open, "open at depth " + depth + " with " + open + " open");
        token(OPEN, at, at + 1, depth);
        open++;
    }

    @Override
    public void close(int end, int depth) {
        check(open > 0 && depth == open - 1, "close at depth " + depth + " with " + open + " open");
        token(CLOSE, end - 1, end, depth);
        open--;
    }

    @Override
    public void name(int start, int end, boolean escaped, int depth) {
        check(depth == open && depth > 0, "name at depth " + depth + " with " + open + " open");
        token(NAME, start, end, depth);
    }

    @Override
    public void string(int start, int end, boolean escaped, int depth) {
        check(depth == open, "string at depth " + depth + " with " + open + " open");
        token(STRING, start, end, depth);
    }

    @Override
    public void scalar(int start, int end, int depth) {
        check(depth == open, "scalar at depth " + depth + " with " + open + " open");
        token(SCALAR, start, end, depth);
    }

    private void token(int kind, int start, int end, int depth) {
        check(start >= position && start < end && end <= to, "token [" + start + ", " + end + ") after " + position);
        rows.add(new int[] {kind, start - from, end - from, depth});
        position = end;
    }

    private static void check(boolean holds, String what) {
        if (!holds) {
            throw new AssertionError(what);
        }
    }
}
