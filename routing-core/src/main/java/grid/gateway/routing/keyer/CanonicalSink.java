package grid.gateway.routing.keyer;

/**
 * Where the canonical byte stream of a prompt goes (docs/design.md §4).
 *
 * <p>Implementations are single-use and not thread-safe. {@link #isFull()} lets a walker stop reading the body once
 * nothing more can change the result.
 */
interface CanonicalSink {
    /** Appends one byte (the low eight bits of {@code b}). */
    void write(int b);

    /** Appends {@code length} bytes of {@code src} from {@code offset}. */
    void write(byte[] src, int offset, int length);

    /** Whether further bytes are ignored. */
    boolean isFull();

    /** Appends a 64-bit value, little-endian, as a fixed-size digest. */
    default void writeDigest(long digest) {
        for (int i = 0; i < Long.BYTES; i++) {
            write((int) (digest >>> (8 * i)));
        }
    }
}
