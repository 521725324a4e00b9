package grid.gateway.app.access;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * The client's answer stream, counting the body bytes written to it and remembering whether a write failed (the
 * client went away).
 *
 * <p>Not thread-safe: owned by the request's thread.
 */
final class CountingStream extends FilterOutputStream {
    private long written;
    private boolean failed;

    CountingStream(OutputStream out) {
        super(out);
    }

    long written() {
        return written;
    }

    boolean failed() {
        return failed;
    }

    @Override
    public void write(int b) throws IOException {
        try {
            out.write(b);
        } catch (IOException | UncheckedIOException | io.helidon.webserver.CloseConnectionException e) {
            failed = true;
            throw e;
        }
        written++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try {
            out.write(b, off, len);
        } catch (IOException | UncheckedIOException | io.helidon.webserver.CloseConnectionException e) {
            failed = true;
            throw e;
        }
        written += len;
    }

    @Override
    public void flush() throws IOException {
        try {
            out.flush();
        } catch (IOException | UncheckedIOException | io.helidon.webserver.CloseConnectionException e) {
            failed = true;
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            out.close();
        } catch (IOException | UncheckedIOException | io.helidon.webserver.CloseConnectionException e) {
            failed = true;
            throw e;
        }
    }
}
