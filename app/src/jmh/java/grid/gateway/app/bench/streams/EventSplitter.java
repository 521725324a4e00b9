package grid.gateway.app.bench.streams;

import java.util.Arrays;

/**
 * Splits a server-sent event stream into events at their blank line ({@code \n\n}), whatever the chunks they arrive
 * in. Holds at most one event's bytes.
 *
 * <p>Not thread-safe.
 */
final class EventSplitter {
    /** Takes one whole event: its bytes, without the blank line, in {@code bytes[0, length)}. */
    interface Sink {
        void event(byte[] bytes, int length);
    }

    private byte[] pending = new byte[512];
    private int size;

    /** Adds {@code n} bytes from {@code buffer}; returns how many events they completed. */
    int accept(byte[] buffer, int n, Sink sink) {
        int events = 0;
        for (int i = 0; i < n; i++) {
            byte b = buffer[i];
            if (b == '\r') {
                continue;
            }
            if (b == '\n' && size > 0 && pending[size - 1] == '\n') {
                sink.event(pending, size - 1);
                size = 0;
                events++;
                continue;
            }
            if (size == pending.length) {
                pending = Arrays.copyOf(pending, size * 2);
            }
            pending[size++] = b;
        }
        return events;
    }
}
