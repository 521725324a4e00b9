package grid.gateway.routing.keyer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH64, the 64-bit xxHash of Yann Collet, written from the algorithm's public specification.
 *
 * <p>Stateless and thread-safe. Chosen for block keys and part digests because keying is on every request's hot
 * path: it runs at several GB/s, where SHA-256 would cost more than the rest of the keyer. Keys only steer routing
 * inside one replica's memory, so a non-cryptographic hash is enough; a forged collision can at most move one
 * request to another cluster.
 */
final class Xxh64 {
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private Xxh64() {}

    /** The hash of {@code length} bytes of {@code data} from {@code offset}, under {@code seed}. */
    static long hash(byte[] data, int offset, int length, long seed) {
        int p = offset;
        int end = offset + length;
        long h;
        if (length >= 32) {
            long v1 = seed + P1 + P2;
            long v2 = seed + P2;
            long v3 = seed;
            long v4 = seed - P1;
            int limit = end - 32;
            do {
                v1 = round(v1, (long) LONGS.get(data, p));
                v2 = round(v2, (long) LONGS.get(data, p + 8));
                v3 = round(v3, (long) LONGS.get(data, p + 16));
                v4 = round(v4, (long) LONGS.get(data, p + 24));
                p += 32;
            } while (p <= limit);
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = merge(h, v1);
            h = merge(h, v2);
            h = merge(h, v3);
            h = merge(h, v4);
        } else {
            h = seed + P5;
        }
        h += length;
        while (p + 8 <= end) {
            h ^= round(0, (long) LONGS.get(data, p));
            h = Long.rotateLeft(h, 27) * P1 + P4;
            p += 8;
        }
        if (p + 4 <= end) {
            h ^= Integer.toUnsignedLong((int) INTS.get(data, p)) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            p += 4;
        }
        while (p < end) {
            h ^= (data[p] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
            p++;
        }
        return avalanche(h);
    }

    private static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * P2, 31) * P1;
    }

    private static long merge(long acc, long value) {
        return (acc ^ round(0, value)) * P1 + P4;
    }

    private static long avalanche(long hash) {
        long h = hash;
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }
}
