package grid.gateway.routing.keyer;

import java.util.Arrays;

/**
 * The members of one JSON object, by byte offsets, in document order.
 *
 * <p>Field order never matters to the keyer: walkers look members up by name here and then read them in the order
 * the canonical stream needs. A duplicated name resolves to its last occurrence, as Python's {@code json} module
 * (and so vLLM) reads it, and a {@code null} value counts as absent; a duplicated root {@code model} or
 * {@code cache_salt} is refused by {@link PromptKeyer} instead ({@link NoKeysReason#DUPLICATE_MEMBER}).
 *
 * <p>Not thread-safe; one per object visit.
 */
final class Members {
    private final byte[] text;
    private int[] slots = new int[16];
    private int count;
    private int objectEnd;

    Members(byte[] text) {
        this.text = text;
    }

    /** Reads the members of the object whose opening brace is at {@code open}. */
    static Members of(JsonNav nav, int open) {
        Members members = new Members(nav.bytes());
        int p = nav.enter(open);
        while (!nav.isClose(p)) {
            int keyEnd = nav.stringEnd(p);
            int valueStart = nav.memberValue(p);
            int valueEnd = nav.end(valueStart);
            members.add(p, keyEnd, valueStart, valueEnd);
            p = nav.next(valueEnd);
        }
        members.objectEnd = p + 1;
        return members;
    }

    void add(int keyStart, int keyEnd, int valueStart, int valueEnd) {
        if (count * 4 == slots.length) {
            slots = Arrays.copyOf(slots, slots.length * 2);
        }
        int i = count * 4;
        slots[i] = keyStart;
        slots[i + 1] = keyEnd;
        slots[i + 2] = valueStart;
        slots[i + 3] = valueEnd;
        count++;
    }

    /** The index just after the object's closing brace (for objects read by {@link #of}). */
    int objectEnd() {
        return objectEnd;
    }

    /** The start of the last non-null value named {@code name}, or -1. */
    int find(JsonNav nav, FieldName name) {
        for (int m = count - 1; m >= 0; m--) {
            if (nav.stringEquals(slots[m * 4], name.bytes())) {
                int valueStart = slots[m * 4 + 2];
                return text[valueStart] == 'n' ? -1 : valueStart;
            }
        }
        return -1;
    }

    /** How many members are named {@code name}, null values included. */
    int count(JsonNav nav, FieldName name) {
        int found = 0;
        for (int m = 0; m < count; m++) {
            if (nav.stringEquals(slots[m * 4], name.bytes())) {
                found++;
            }
        }
        return found;
    }

    /** Whether a member named {@code name} exists with a non-null value. */
    boolean has(JsonNav nav, FieldName name) {
        return find(nav, name) >= 0;
    }

    /** The end of the value that starts at {@code valueStart}, which must be one of these members' values. */
    int valueEnd(int valueStart) {
        for (int m = 0; m < count; m++) {
            if (slots[m * 4 + 2] == valueStart) {
                return slots[m * 4 + 3];
            }
        }
        throw new IllegalArgumentException("not a member value: " + valueStart);
    }
}
