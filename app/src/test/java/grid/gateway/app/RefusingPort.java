package grid.gateway.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A port on 127.0.0.1 where nothing listens, kept so until {@link #close()}: a socket bound to a port the kernel
 * picks, that never listens. A connection to it is refused, and while it is bound no other socket is given the port:
 * not a listener on port 0 (a gateway's, an engine's, another process's), not the own end of an outgoing connection
 * (which could otherwise connect to itself), not an explicit bind.
 *
 * <p>A port found by binding a socket and closing it promises none of that: the next listener on port 0, in this JVM
 * or another process, may be given it, and "nothing listens there" becomes "the gateway listens there".
 *
 * <p>Not thread-safe; one test owns it.
 */
public final class RefusingPort implements AutoCloseable {
    private static final RefusingPort SHARED = new RefusingPort();

    private final Socket held;

    /** Binds a port of the kernel's choice on 127.0.0.1, never listening on it. */
    public RefusingPort() {
        Socket socket = new Socket();
        try {
            // Off (the default for a Socket): no other socket may bind the port, SO_REUSEADDR or not.
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new UncheckedIOException(e);
        }
        held = socket;
    }

    /**
     * One for the whole test JVM, never closed: for a config that names an origin where nothing answers (a dead
     * cluster, a metrics URL no test reads).
     */
    public static RefusingPort shared() {
        return SHARED;
    }

    /** The port: every connection to 127.0.0.1 on it is refused while this is open. */
    public int port() {
        return held.getLocalPort();
    }

    /** {@code http://127.0.0.1:<port>}, an origin no engine answers at. */
    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** Gives the port back; the {@link #shared()} one is never closed. */
    @Override
    public void close() {
        if (this == SHARED) {
            throw new IllegalStateException("the shared refusing port stays open for the test JVM's life");
        }
        try {
            held.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
