package grid.gateway.app.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Optional;

/**
 * Reads a request body of at most {@code max_body_bytes}, held once as bytes: it is keyed, then forwarded.
 *
 * <p>Stateless and thread-safe. A declared {@code Content-Length} over the limit is refused before any byte is
 * read; a chunked body is read up to one byte past the limit, never further, so an endless body costs at most the
 * limit. The buffer is sized from {@code Content-Length} when there is one, and such a body is neither grown nor
 * trimmed: it is held in the one array it was read into.
 */
public final class BoundedBody {
    private static final int CHUNKED_INITIAL = 16 * 1024;

    private BoundedBody() {}

    /** The body, or empty when it is larger than {@code maxBytes}. */
    public static Optional<byte[]> read(ServerRequest request, long maxBytes) {
        if (!request.content().hasEntity()) {
            return Optional.of(new byte[0]);
        }
        long declared = request.headers()
                .first(HeaderNames.CONTENT_LENGTH)
                .map(BoundedBody::parseLength)
                .orElse(-1L);
        if (declared > maxBytes) {
            return Optional.empty();
        }
        int initial = declared >= 0 ? (int) declared : (int) Math.min(CHUNKED_INITIAL, maxBytes + 1);
        try (InputStream in = request.content().inputStream()) {
            return read(in, initial, maxBytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads {@code in} to its end into a buffer of {@code initial} bytes, grown by doubling; empty once more than
     * {@code maxBytes} were read (at most one byte more is read). A full buffer is probed with a one-byte read before
     * it grows, so a body of its declared length is returned in the buffer it was read into, with no copy.
     */
    static Optional<byte[]> read(InputStream in, int initial, long maxBytes) throws IOException {
        byte[] buffer = new byte[Math.max(initial, 1)];
        int size = 0;
        while (true) {
            if (size == buffer.length) {
                int next = in.read();
                if (next < 0) {
                    return Optional.of(buffer);
                }
                if (size + 1L > maxBytes) {
                    return Optional.empty();
                }
                buffer = Arrays.copyOf(buffer, (int) Math.min((long) size * 2, maxBytes + 1));
                buffer[size++] = (byte) next;
            }
            int n = in.read(buffer, size, buffer.length - size);
            if (n < 0) {
                return Optional.of(size == buffer.length ? buffer : Arrays.copyOf(buffer, size));
            }
            size += n;
            if (size > maxBytes) {
                return Optional.empty();
            }
        }
    }

    private static long parseLength(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
