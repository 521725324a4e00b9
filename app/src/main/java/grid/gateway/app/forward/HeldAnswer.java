package grid.gateway.app.forward;

import java.util.Arrays;

/**
 * The first bytes of a tagged JSON answer, held to learn whether the whole answer is short (docs/design.md §H20): one
 * that ends within {@link #LIMIT} is tagged whole and sent with its exact new {@code Content-Length}; a longer one is
 * tagged as it streams, starting with these bytes, and then let go of. Every byte of room is counted in the answer's
 * memory as it is taken, and given back when it is let go of.
 *
 * <p>Not thread-safe; one per answer.
 */
final class HeldAnswer {
    /** Answers up to this long are held whole: every Responses object but one echoing a very long input. */
    static final int LIMIT = 64 * 1024;

    private final AnswerMemory memory;
    private byte[] bytes;
    private int size;

    /** Room for {@code expected} bytes (the announced length, or less when unknown), counted in {@code memory}. */
    HeldAnswer(long expected, AnswerMemory memory) {
        this.memory = memory;
        int initial = (int) Math.max(256, Math.min(LIMIT, expected < 0 ? 4096 : expected));
        this.bytes = new byte[initial];
        memory.hold(initial);
    }

    /** Adds {@code source[0, length)}; false once more than {@link #LIMIT} bytes are held (they are kept all the same). */
    boolean add(byte[] source, int length) {
        if (size + length > bytes.length) {
            int grown = Math.max(size + length, Math.min(LIMIT + length, bytes.length * 2));
            memory.hold(grown - bytes.length);
            bytes = Arrays.copyOf(bytes, grown);
        }
        System.arraycopy(source, 0, bytes, size, length);
        size += length;
        return size <= LIMIT;
    }

    /** Lets go of the bytes held (they were handed on) and gives their room back to the answer's memory. */
    void letGo() {
        memory.release(bytes.length);
        bytes = new byte[0];
        size = 0;
    }

    /** The bytes held. */
    byte[] bytes() {
        return bytes;
    }

    /** How many bytes are held. */
    int size() {
        return size;
    }
}
