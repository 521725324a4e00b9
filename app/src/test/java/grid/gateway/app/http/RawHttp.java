package grid.gateway.app.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: a raw-socket HTTP/1.1 client that sends exactly the bytes a test writes (the JDK client refuses to
 * send malformed framing) and reads whatever comes back until the server closes the connection or goes quiet.
 */
final class RawHttp implements AutoCloseable {
    /** What the server sent back, and whether it closed the connection. */
    record Reply(String text, boolean closed) {
        /** The status code of the first response, or -1 when nothing arrived. */
        int status() {
            if (!text.startsWith("HTTP/1.1 ")) {
                return -1;
            }
            return Integer.parseInt(text.substring(9, 12));
        }

        /** How many responses (status lines) the server wrote. */
        long responses() {
            return java.util.regex.Pattern.compile("HTTP/1\\.1 \\d{3} ")
                    .matcher(text)
                    .results()
                    .count();
        }

        /** The body of the first response (after the blank line), as text. */
        String body() {
            int end = text.indexOf("\r\n\r\n");
            return end < 0 ? "" : text.substring(end + 4);
        }
    }

    /**
     * Connects the unconnected {@code client} (plain or TLS) to the gateway on {@code port} with a receive buffer of
     * {@code receiveBuffer} bytes (set before connecting, so that the window it advertises is that small) and a read
     * timeout of {@code timeoutMillis}, sends one Chat Completions POST of {@code body}, and gives the stream its
     * answer is read from: what a slow or stalled reader starts with.
     */
    static InputStream postChat(Socket client, int port, int receiveBuffer, int timeoutMillis, String body)
            throws IOException {
        return postChat(client, "127.0.0.1", port, receiveBuffer, timeoutMillis, body);
    }

    /** As {@link #postChat(Socket, int, int, int, String)}, to the listener at {@code host}. */
    static InputStream postChat(Socket client, String host, int port, int receiveBuffer, int timeoutMillis, String body)
            throws IOException {
        client.setReceiveBufferSize(receiveBuffer);
        client.connect(new InetSocketAddress(host, port), 5_000);
        client.setSoTimeout(timeoutMillis);
        OutputStream out = client.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + body.length() + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return client.getInputStream();
    }

    /** The wait for a server that has not finished: long, since it only bounds a server that never does. */
    static final int PATIENCE_MILLIS = 10_000;

    private final Socket socket;

    RawHttp(int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code text} (ISO-8859-1, so every char is one byte). */
    RawHttp send(String text) {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawHttp send(byte[] bytes) {
        try {
            OutputStream out = socket.getOutputStream();
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Writes without failing when the server already closed (a refused upload may see a reset). */
    boolean trySend(byte[] bytes) {
        try {
            send(bytes);
            return true;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    /**
     * Reads until {@code count} whole responses (framed by {@code Content-Length}) have arrived, or the server
     * closes, or 10 s pass; keep-alive answers then cost no waiting for silence.
     */
    Reply readResponses(int count) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        boolean closed = false;
        try {
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            while (complete(got.toString(StandardCharsets.ISO_8859_1)) < count) {
                int n = in.read(buffer);
                if (n < 0) {
                    closed = true;
                    break;
                }
                got.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException quiet) {
            // report what arrived
        } catch (SocketException reset) {
            closed = true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Reply(got.toString(StandardCharsets.ISO_8859_1), closed);
    }

    /**
     * Whether {@code text} is one or more whole answers, the last of which leaves the connection open: then silence
     * means the server has nothing more to say.
     */
    static boolean settled(String text) {
        int at = 0;
        @Nullable String lastHead = null;
        while (at < text.length()) {
            int headEnd = text.indexOf("\r\n\r\n", at);
            if (headEnd < 0) {
                return false;
            }
            String head = text.substring(at, headEnd);
            int bodyEnd;
            java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?im)^content-length: *(\\d+)")
                    .matcher(head);
            if (length.find()) {
                bodyEnd = headEnd + 4 + Integer.parseInt(length.group(1));
            } else if (java.util.regex.Pattern.compile("(?im)^transfer-encoding: *chunked")
                    .matcher(head)
                    .find()) {
                int last = text.indexOf("\r\n0\r\n\r\n", headEnd + 2);
                bodyEnd = last < 0 ? Integer.MAX_VALUE : last + 7;
            } else {
                bodyEnd = headEnd + 4;
            }
            if (bodyEnd > text.length()) {
                return false;
            }
            lastHead = head;
            at = bodyEnd;
        }
        return lastHead != null
                && !java.util.regex.Pattern.compile("(?im)^connection: *close")
                        .matcher(lastHead)
                        .find();
    }

    /** How many complete Content-Length-framed responses {@code text} holds. */
    private static int complete(String text) {
        int count = 0;
        int at = 0;
        while (true) {
            int headEnd = text.indexOf("\r\n\r\n", at);
            if (headEnd < 0) {
                return count;
            }
            java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?im)^content-length: *(\\d+)")
                    .matcher(text.substring(at, headEnd));
            int bodyEnd = headEnd + 4 + (length.find() ? Integer.parseInt(length.group(1)) : 0);
            if (bodyEnd > text.length()) {
                return count;
            }
            count++;
            at = bodyEnd;
        }
    }

    /**
     * Reads until the server closes, or until it has been quiet for {@code quietMillis} after a whole answer (its
     * {@code Content-Length} body or its chunked body's last chunk included) that did not say {@code Connection:
     * close}. Before anything came, inside an answer, and after an answer that announced the close, the wait is
     * {@value #PATIENCE_MILLIS} ms: those pauses are the server's own (a thread not scheduled, a collection on a
     * loaded machine), and a short quiet there would cut an answer short or miss the close it announced.
     */
    Reply read(int quietMillis) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        boolean closed = false;
        try {
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            while (true) {
                socket.setSoTimeout(settled(got.toString(StandardCharsets.ISO_8859_1)) ? quietMillis : PATIENCE_MILLIS);
                int n;
                try {
                    n = in.read(buffer);
                } catch (SocketTimeoutException quiet) {
                    break;
                }
                if (n < 0) {
                    closed = true;
                    break;
                }
                got.write(buffer, 0, n);
            }
        } catch (SocketException reset) {
            closed = true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Reply(got.toString(StandardCharsets.ISO_8859_1), closed);
    }

    /** Whether the server has closed the connection (an end of stream or a reset within {@code millis}). */
    boolean closedWithin(int millis) {
        try {
            socket.setSoTimeout(millis);
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            while (true) {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException open) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test socket
        }
    }
}
