package grid.gateway.app.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: an HTTP/1.1 client on a raw socket, which reads an answer exactly as it arrives and reports whether
 * its framing completed (the terminating chunk of a chunked body, all Content-Length bytes) or the connection ended
 * first. The JDK client hides that difference, which is what a client of a broken stream must be able to see.
 */
final class RawClient implements AutoCloseable {
    /** An answer as read: status, head, body bytes read, and whether the framing completed. */
    record Answer(int status, String head, String body, boolean complete) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawClient(int port) throws IOException {
        this(new Socket("127.0.0.1", port), 0);
    }

    private RawClient(Socket socket, long pauseNanos) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(20_000);
        InputStream raw = socket.getInputStream();
        in = pauseNanos == 0 ? raw : new PausingStream(raw, socket.getReceiveBufferSize(), pauseNanos);
        out = socket.getOutputStream();
    }

    /**
     * A slow reader: a receive buffer of {@code receiveBuffer} bytes (set before it connects, so the window stays
     * small), and a pause of {@code pauseNanos} after each buffer's worth it reads, so the gateway's writes to it block.
     */
    static RawClient slow(int port, int receiveBuffer, long pauseNanos) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(receiveBuffer);
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", port));
        return new RawClient(socket, pauseNanos);
    }

    /** Pauses after each {@code every} bytes read. */
    private static final class PausingStream extends java.io.FilterInputStream {
        private final int every;
        private final long pauseNanos;
        private int sincePause;

        PausingStream(InputStream in, int every, long pauseNanos) {
            super(in);
            this.every = Math.max(1, every);
            this.pauseNanos = pauseNanos;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            counted(1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, Math.min(len, every));
            counted(Math.max(n, 0));
            return n;
        }

        private void counted(int n) {
            sincePause += n;
            if (sincePause >= every) {
                sincePause = 0;
                java.util.concurrent.locks.LockSupport.parkNanos(pauseNanos);
            }
        }
    }

    /** Sends {@code text} as ISO-8859-1 bytes. */
    void send(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Sends a JSON POST with its Content-Length. */
    void post(String path, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        send("POST " + path + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: "
                + bytes.length + "\r\n\r\n");
        out.write(bytes);
        out.flush();
    }

    /** Reads the status line and headers. */
    String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            String text = head.toString(StandardCharsets.ISO_8859_1);
            if (text.endsWith("\r\n\r\n")) {
                return text;
            }
        }
        throw new IOException("connection ended inside the head: " + head.toString(StandardCharsets.ISO_8859_1));
    }

    /** Reads text up to and including {@code end}, or to the end of the stream. */
    String readUntil(String end) throws IOException {
        StringBuilder text = new StringBuilder();
        int c;
        while (!text.toString().endsWith(end) && (c = in.read()) >= 0) {
            text.append((char) c);
        }
        return text.toString();
    }

    /**
     * Reads one whole answer (a 204 or 304 has none); a body cut short is returned as read, with {@code complete}
     * false.
     */
    Answer read() throws IOException {
        String head = readHead();
        int status = Integer.parseInt(head.substring(9, 12));
        String lower = head.toLowerCase(Locale.ROOT);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean complete;
        try {
            if (status == 204 || status == 304) {
                // No body, whatever the head says (RFC 9112 section 6.3).
                complete = true;
            } else if (lower.contains("\r\ntransfer-encoding: chunked")) {
                complete = readChunks(body);
            } else if (lower.contains("\r\ncontent-length:")) {
                int at = lower.indexOf("\r\ncontent-length:") + 17;
                int length = Integer.parseInt(
                        lower.substring(at, lower.indexOf("\r\n", at)).trim());
                byte[] bytes = in.readNBytes(length);
                body.write(bytes);
                complete = bytes.length == length;
            } else {
                body.write(in.readAllBytes());
                complete = true;
            }
        } catch (SocketException reset) {
            complete = false;
        }
        return new Answer(status, head, body.toString(StandardCharsets.UTF_8), complete);
    }

    /** Decodes chunks into {@code body}; true only when the terminating zero-size chunk arrived. */
    private boolean readChunks(ByteArrayOutputStream body) throws IOException {
        while (true) {
            String sizeLine = readLine();
            if (sizeLine == null || sizeLine.isEmpty()) {
                return false;
            }
            int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
            if (size == 0) {
                return readLine() != null;
            }
            byte[] chunk = in.readNBytes(size);
            body.write(chunk);
            if (chunk.length < size || readLine() == null) {
                return false;
            }
        }
    }

    private @Nullable String readLine() throws IOException {
        return WireLines.line(in);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
