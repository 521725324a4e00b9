package grid.gateway.routing.keyer;

/**
 * Where the canonical byte stream of a prompt goes (docs/design.md §4).
 *
 * <p>Implementations are single-use and not thread-safe. The block chain ends the walk itself at its 512th key
 * ({@link ChainFull}).
 */
interface CanonicalSink {
    /** Appends one byte (the low eight bits of {@code b}). */
    void write(int b);

    /** Appends {@code length} bytes of {@code src} from {@code offset}. */
    void write(byte[] src, int offset, int length);

    /** Appends a 64-bit value, little-endian, as a fixed-size digest. */
    default void writeDigest(long digest) {
        for (int i = 0; i < Long.BYTES; i++) {
            write((int) (digest >>> (8 * i)));
        }
    }
}
