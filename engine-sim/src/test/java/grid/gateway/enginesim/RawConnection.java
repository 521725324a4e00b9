package grid.gateway.enginesim;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Test client: one keep-alive HTTP/1.1 connection to a simulator on a raw socket, so a test sees exactly what happens
 * to the connection between two requests. Every read has a deadline.
 */
final class RawConnection implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** One answer: its status, headers (names in lower case) and body. */
    record Answer(int status, Map<String, String> headers, String body) {}

    RawConnection(EngineSimulator engine) throws IOException {
        socket = new Socket("127.0.0.1", engine.port());
        socket.setSoTimeout((int) SimHttp.TIMEOUT.toMillis());
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Sends a POST of {@code body} to {@code path} with {@code extraHeaders} (full lines, CRLF-ended). */
    void post(String path, String body, String extraHeaders) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + bytes.length + "\r\n" + extraHeaders + "\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    /** Sends {@code method} on {@code path}, with a JSON {@code body} if there is one. */
    void send(String method, String path, Optional<String> body) throws IOException {
        byte[] bytes = body.orElse("").getBytes(StandardCharsets.UTF_8);
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (body.isPresent() ? "Content-Type: application/json\r\n" : "")
                + "Content-Length: " + bytes.length + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    /** Reads one whole answer with a Content-Length body. */
    Answer read() throws IOException {
        String head = readHead();
        String[] lines = head.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(
                    lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("body cut at " + body.length + " of " + length + " bytes");
        }
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    /**
     * Whether the connection ends before any byte of an answer: end of stream or a reset. A byte of answer, or
     * nothing at all within the deadline, is an {@link AssertionError}.
     */
    boolean endsWithoutAnswer() {
        try {
            int first = in.read();
            if (first >= 0) {
                throw new AssertionError("an answer began: " + (char) first);
            }
            return true;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection neither answered nor ended within " + SimHttp.TIMEOUT, e);
        } catch (SocketException e) {
            return true; // reset by the peer
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Sends a POST, tolerating a connection the peer already reset (the write then fails). */
    void postIgnoringReset(String path, String body) {
        try {
            post(path, body, "");
        } catch (IOException e) {
            // The peer reset the connection before the request went out; reading then ends at once.
        }
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < end.length) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection ended inside an answer's head: " + head);
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
