package grid.gateway.routing.keyer;

import java.util.Arrays;

/**
 * The members of one JSON object that the walkers can ask for, by byte offsets.
 *
 * <p>Field order never matters to the keyer: walkers look members up by name here and then read them in the order
 * the canonical stream needs. Only names in {@link FieldName#ALL} are recorded, each with its last occurrence and its
 * number of occurrences, so an object costs at most about a kilobyte however many members it has (a table of every
 * member would take 16 bytes of offsets for each of the millions of tiny root members a 32 MiB body can hold). A
 * duplicated name resolves to its last occurrence, as Python's {@code json} module (and so vLLM) reads it, and a
 * {@code null} value counts as absent; a duplicated root {@code model} or {@code cache_salt} is refused by {@link
 * PromptKeyer} instead ({@link NoKeysReason#DUPLICATE_MEMBER}).
 *
 * <p>Not thread-safe; one per object visit.
 */
final class Members {
    /** Ints an entry takes: name index, key start, key end, value start, value end, occurrences. */
    private static final int ENTRY = 6;

    private final byte[] text;
    /** One entry per name seen, in order of first sight; at most {@code FieldName.ALL.size()} entries. */
    private int[] entries = new int[2 * ENTRY];

    private int size;
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

    /** Notes one member; one whose name no walker asks for is not kept, a repeated name keeps its last value. */
    void add(int keyStart, int keyEnd, int valueStart, int valueEnd) {
        int name = FieldName.indexOf(text, keyStart, keyEnd);
        if (name < 0) {
            return;
        }
        int e = entry(name);
        if (e < 0) {
            if (size * ENTRY == entries.length) {
                entries = Arrays.copyOf(entries, entries.length * 2);
            }
            e = size++ * ENTRY;
            entries[e] = name;
        }
        entries[e + 1] = keyStart;
        entries[e + 2] = keyEnd;
        entries[e + 3] = valueStart;
        entries[e + 4] = valueEnd;
        entries[e + 5]++;
    }

    /** Where the entry of name index {@code name} starts in {@link #entries}, or -1. */
    private int entry(int name) {
        for (int e = 0; e < size * ENTRY; e += ENTRY) {
            if (entries[e] == name) {
                return e;
            }
        }
        return -1;
    }

    /** The index just after the object's closing brace (for objects read by {@link #of}). */
    int objectEnd() {
        return objectEnd;
    }

    /** The start of the last value named {@code name} when it is not null, or -1. */
    int find(JsonNav nav, FieldName name) {
        int e = entry(name.index());
        if (e < 0) {
            return -1;
        }
        int valueStart = entries[e + 3];
        return text[valueStart] == 'n' ? -1 : valueStart;
    }

    /** How many members are named {@code name}, null values included. */
    int count(JsonNav nav, FieldName name) {
        int e = entry(name.index());
        return e < 0 ? 0 : entries[e + 5];
    }

    /** Whether a member named {@code name} exists with a non-null value. */
    boolean has(JsonNav nav, FieldName name) {
        return find(nav, name) >= 0;
    }

    /** The end of the value that starts at {@code valueStart}, which must be one of these members' values. */
    int valueEnd(int valueStart) {
        for (int e = 0; e < size * ENTRY; e += ENTRY) {
            if (entries[e + 3] == valueStart) {
                return entries[e + 4];
            }
        }
        throw new IllegalArgumentException("not a member value: " + valueStart);
    }
}
