package grid.gateway.routing.keyer;

import java.util.Arrays;

/**
 * A growable byte array that accepts the canonical stream, for decoded strings and for tests.
 *
 * <p>Not thread-safe. Never full: it has no key limit.
 */
final class ByteSink implements CanonicalSink {
    private byte[] bytes;
    private int size;

    ByteSink(int initialCapacity) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
    }

    @Override
    public void write(int b) {
        ensure(1);
        bytes[size++] = (byte) b;
    }

    @Override
    public void write(byte[] src, int offset, int length) {
        ensure(length);
        System.arraycopy(src, offset, bytes, size, length);
        size += length;
    }

    int size() {
        return size;
    }

    /** The bytes written so far, copied. */
    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
