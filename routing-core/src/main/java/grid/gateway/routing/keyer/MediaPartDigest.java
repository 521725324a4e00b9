package grid.gateway.routing.keyer;

import java.util.List;

/**
 * The one fixed-size digest an image, audio, video or file part contributes (docs/design.md §4).
 *
 * <p>With a {@code uuid} member (vLLM's per-part identifier, a sibling of {@code type}) the digest is of the uuid, so
 * two parts with the same uuid key the same whatever their data. Otherwise it is of the payload as sent: the first
 * present payload member, and inside an object payload its {@code url}, {@code data}, {@code file_data},
 * {@code file_id} or {@code file_url} string (so an image's {@code detail} does not split keys). The raw bytes are
 * digested without decoding, so a 2 MiB base64 image costs one pass of {@link Xxh64}.
 *
 * <p>Stateless and thread-safe.
 */
final class MediaPartDigest {
    private static final long UUID_SEED = 0x0001_D1D1L;
    private static final long DATA_SEED = 0x000D_A7A0L;
    private static final List<FieldName> DATA_MEMBERS =
            List.of(FieldName.URL, FieldName.DATA, FieldName.FILE_DATA, FieldName.FILE_ID, FieldName.FILE_URL);

    private MediaPartDigest() {}

    /** The digest of the part whose members are {@code part} and whose bytes are {@code [partStart, partEnd)}. */
    static long of(JsonNav nav, Members part, List<FieldName> payload, int partStart, int partEnd) {
        int uuid = part.find(nav, FieldName.UUID);
        if (uuid >= 0) {
            if (nav.isString(uuid)) {
                byte[] id = nav.decodedBytes(uuid);
                return Xxh64.hash(id, 0, id.length, UUID_SEED);
            }
            // vLLM applies str() to a non-string uuid; its text as sent is the nearest stable stand-in.
            return digest(nav, uuid, part.valueEnd(uuid));
        }
        for (FieldName name : payload) {
            int value = part.find(nav, name);
            if (value >= 0) {
                return payloadDigest(nav, value, part.valueEnd(value));
            }
        }
        return digest(nav, partStart, partEnd);
    }

    private static long payloadDigest(JsonNav nav, int start, int end) {
        if (nav.isString(start)) {
            return digest(nav, start + 1, end - 1);
        }
        if (nav.isObject(start)) {
            Members inner = Members.of(nav, start);
            for (FieldName name : DATA_MEMBERS) {
                int value = inner.find(nav, name);
                if (value >= 0 && nav.isString(value)) {
                    return digest(nav, value + 1, inner.valueEnd(value) - 1);
                }
            }
        }
        return digest(nav, start, end);
    }

    private static long digest(JsonNav nav, int start, int end) {
        return Xxh64.hash(nav.bytes(), start, end - start, DATA_SEED);
    }
}
