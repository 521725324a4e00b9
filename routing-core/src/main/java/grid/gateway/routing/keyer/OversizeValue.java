package grid.gateway.routing.keyer;

/**
 * The 16 KiB rule (docs/design.md §4): a tool list, tool-call arguments or other JSON value the keyer would canonicalise, that
 * takes more than {@link #LIMIT} bytes as sent, is keyed by a digest of exactly those bytes instead.
 *
 * <p>"As sent" is exact: the value's own bytes in the body, from its first byte to its last (a string's quotes
 * included), found by byte offsets rather than re-serialised. This bounds the memory canonical form needs (sorting
 * members means holding them) and keeps a large schema from costing more than one pass.
 *
 * <p>Stateless and thread-safe.
 */
final class OversizeValue {
    /** The most bytes a value may take as sent and still be keyed in canonical form. */
    static final int LIMIT = 16 * 1024;

    private static final long DIGEST_SEED = 0x0E5A_0E5AL;

    private OversizeValue() {}

    /** Whether the value in {@code [start, end)} is over the limit. */
    static boolean applies(int start, int end) {
        return end - start > LIMIT;
    }

    /** Writes the marker and the digest of the value's bytes as sent. */
    static void write(byte[] body, int start, int end, CanonicalSink sink) {
        sink.write(Segment.OVERSIZE);
        sink.writeDigest(Xxh64.hash(body, start, end - start, DIGEST_SEED));
    }
}
