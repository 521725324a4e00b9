package grid.gateway.app.bench.streams;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.jspecify.annotations.Nullable;

/**
 * A load client's connection to its target: opened by the first stream sent on it and, when the load reuses
 * connections (--keep-alive), kept for the next stream once an answer was read to its end, as an HTTP client's pool
 * keeps it.
 *
 * <p>Not thread-safe, apart from {@link #close}, which another thread may call to stop a stream.
 */
final class ClientConnection {
    private final Socket socket = new Socket();
    private @Nullable InputStream in;
    private @Nullable OutputStream out;

    /** Whether a stream opened it and nothing closed it since (closed, it cannot be opened again). */
    boolean isOpen() {
        return in != null && !socket.isClosed();
    }

    /** Connects to {@code target}, read at {@code pace}. */
    void open(InetSocketAddress target, ReadPace pace) throws IOException {
        pace.configure(socket);
        socket.connect(target, 10_000);
        in = pace.wrap(socket.getInputStream());
        out = socket.getOutputStream();
    }

    InputStream in() {
        if (in == null) {
            throw new IllegalStateException("not open");
        }
        return in;
    }

    OutputStream out() {
        if (out == null) {
            throw new IllegalStateException("not open");
        }
        return out;
    }

    void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }
}
