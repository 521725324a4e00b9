package grid.gateway.routing.keyer;

import java.util.Arrays;
import java.util.Comparator;
import org.jspecify.annotations.Nullable;

/**
 * Writes a JSON value in canonical form (docs/design.md §4): object members sorted by name (UTF-8 byte order, which is code
 * point order), no insignificant white space, strings re-escaped minimally after decoding, numbers by
 * {@link CanonicalNumber}. A duplicated member name keeps its last value, as a JSON parser reads it.
 *
 * <p>The value is first read into a flat node table in one linear pass and then written, so sorting costs
 * {@code n log n} and nesting never makes the pass quadratic. Callers pass only values of at most
 * {@link OversizeValue#LIMIT} bytes (larger ones are keyed by digest), which bounds the table; recursion is bounded
 * by {@link grid.gateway.routing.text.JsonTokenizer#MAX_DEPTH}.
 *
 * <p>Not thread-safe. One instance serves every value of one body in turn ({@link #writeValue}): its table grows to
 * the largest value and is then reused, so a list of thousands of tiny tools costs one table, not one each.
 */
final class CanonicalJson {
    private static final byte STRING = 1;
    private static final byte NUMBER = 2;
    private static final byte LITERAL = 3;
    private static final byte ARRAY = 4;
    private static final byte OBJECT = 5;
    private static final int INITIAL_NODES = 16;

    // The value being written: set by writeValue before it reads anything, kept between calls to reuse the tables.
    @SuppressWarnings("NullAway.Init")
    private JsonNav nav;

    @SuppressWarnings("NullAway.Init")
    private byte[] b;

    @SuppressWarnings("NullAway.Init")
    private CanonicalSink sink;

    private byte[] kind = new byte[INITIAL_NODES];
    private int[] start = new int[INITIAL_NODES];
    private int[] end = new int[INITIAL_NODES];
    private int[] firstChild = new int[INITIAL_NODES];
    private int[] nextSibling = new int[INITIAL_NODES];
    private int[] keyStart = new int[INITIAL_NODES];
    private int count;

    /** A writer with an empty table. */
    CanonicalJson() {}

    /**
     * Writes the value that starts at {@code valueStart}; when {@code droppedRootMember} is given, the root object's
     * member of that name is left out.
     */
    static void write(JsonNav nav, int valueStart, CanonicalSink sink, @Nullable FieldName droppedRootMember) {
        new CanonicalJson().writeValue(nav, valueStart, sink, droppedRootMember);
    }

    /** As {@link #write}, reusing this writer's table. */
    void writeValue(JsonNav valueNav, int valueStart, CanonicalSink valueSink, @Nullable FieldName droppedRootMember) {
        this.nav = valueNav;
        this.b = valueNav.bytes();
        this.sink = valueSink;
        this.count = 0;
        int root = read(valueStart);
        emit(root, droppedRootMember);
    }

    private int read(int p) {
        int node = newNode(p);
        byte c = b[p];
        if (c == '{' || c == '[') {
            kind[node] = c == '{' ? OBJECT : ARRAY;
            int q = nav.enter(p);
            int last = -1;
            while (!nav.isClose(q)) {
                int key = -1;
                if (c == '{') {
                    key = q;
                    q = nav.memberValue(q);
                }
                int child = read(q);
                keyStart[child] = key;
                if (last < 0) {
                    firstChild[node] = child;
                } else {
                    nextSibling[last] = child;
                }
                last = child;
                q = nav.next(end[child]);
            }
            end[node] = q + 1;
        } else {
            kind[node] = c == '"' ? STRING : (c == '-' || (c >= '0' && c <= '9')) ? NUMBER : LITERAL;
            end[node] = nav.end(p);
        }
        return node;
    }

    private void emit(int node, @Nullable FieldName droppedMember) {
        switch (kind[node]) {
            case STRING -> writeString(nav.decodedBytes(start[node]));
            case NUMBER -> CanonicalNumber.write(b, start[node], end[node], sink);
            case LITERAL -> sink.write(b, start[node], end[node] - start[node]);
            case ARRAY -> emitArray(node);
            default -> emitObject(node, droppedMember);
        }
    }

    private void emitArray(int node) {
        sink.write('[');
        for (int child = firstChild[node]; child >= 0; child = nextSibling[child]) {
            if (child != firstChild[node]) {
                sink.write(',');
            }
            emit(child, null);
        }
        sink.write(']');
    }

    private void emitObject(int node, @Nullable FieldName droppedMember) {
        if (firstChild[node] < 0) {
            sink.write('{');
            sink.write('}');
            return;
        }
        int size = 0;
        for (int child = firstChild[node]; child >= 0; child = nextSibling[child]) {
            size++;
        }
        int[] order = new int[size];
        int[] children = new int[size];
        byte[][] names = new byte[size][];
        int i = 0;
        for (int child = firstChild[node]; child >= 0; child = nextSibling[child]) {
            order[i] = i;
            children[i] = child;
            names[i] = nav.decodedBytes(keyStart[child]);
            i++;
        }
        sortStably(order, names);
        sink.write('{');
        boolean first = true;
        for (int k = 0; k < size; k++) {
            int m = order[k];
            boolean shadowed = k + 1 < size && Arrays.equals(names[m], names[order[k + 1]]);
            boolean dropped = droppedMember != null && Arrays.equals(names[m], droppedMember.bytes());
            if (shadowed || dropped) {
                continue;
            }
            if (!first) {
                sink.write(',');
            }
            first = false;
            writeString(names[m]);
            sink.write(':');
            emit(children[m], null);
        }
        sink.write('}');
    }

    /**
     * Sorts member indices by name, keeping document order among equal names so that the last occurrence is the
     * one kept. Insertion sort: objects are small and usually already sorted; a large one falls back to a merge sort.
     */
    private static void sortStably(int[] order, byte[][] names) {
        if (order.length > 32) {
            Integer[] boxed = Arrays.stream(order).boxed().toArray(Integer[]::new);
            Arrays.sort(boxed, Comparator.comparing((Integer m) -> names[m], Arrays::compareUnsigned));
            for (int k = 0; k < order.length; k++) {
                order[k] = boxed[k];
            }
            return;
        }
        for (int k = 1; k < order.length; k++) {
            int m = order[k];
            int j = k - 1;
            while (j >= 0 && Arrays.compareUnsigned(names[order[j]], names[m]) > 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = m;
        }
    }

    /** Writes decoded string content as a minimally escaped JSON string. */
    private void writeString(byte[] content) {
        sink.write('"');
        int run = 0;
        for (int i = 0; i < content.length; i++) {
            int c = content[i] & 0xFF;
            if (c == '"' || c == '\\' || c < 0x20) {
                sink.write(content, run, i - run);
                run = i + 1;
                sink.write('\\');
                if (c < 0x20) {
                    sink.write('u');
                    sink.write('0');
                    sink.write('0');
                    sink.write(Character.forDigit(c >>> 4, 16));
                    sink.write(Character.forDigit(c & 0xF, 16));
                } else {
                    sink.write(c);
                }
            }
        }
        sink.write(content, run, content.length - run);
        sink.write('"');
    }

    private int newNode(int p) {
        if (count == kind.length) {
            int capacity = count * 2;
            kind = Arrays.copyOf(kind, capacity);
            start = Arrays.copyOf(start, capacity);
            end = Arrays.copyOf(end, capacity);
            firstChild = Arrays.copyOf(firstChild, capacity);
            nextSibling = Arrays.copyOf(nextSibling, capacity);
            keyStart = Arrays.copyOf(keyStart, capacity);
        }
        int node = count++;
        start[node] = p;
        firstChild[node] = -1;
        nextSibling[node] = -1;
        keyStart[node] = -1;
        return node;
    }
}
