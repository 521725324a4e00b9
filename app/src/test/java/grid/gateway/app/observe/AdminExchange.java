package grid.gateway.app.observe;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Test fixture: one request to the admin port sent as exact bytes, as an operator's tool writes it, and its answer read
 * to the connection's end: the head and the content as framed by {@code Content-Length} (which every admin answer
 * must have: a probe or scraper speaking HTTP/1.0 reads no chunked coding).
 */
public record AdminExchange(String head, byte[] body) {
    /** Sends {@code request} to 127.0.0.1:{@code port} and reads the answer until the server closes. */
    public static AdminExchange send(int port, String request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buffer = new byte[16 * 1024];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                all.write(buffer, 0, n);
            }
            byte[] bytes = all.toByteArray();
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                throw new AssertionError("no whole head came: " + text);
            }
            return new AdminExchange(text.substring(0, end + 2), Arrays.copyOfRange(bytes, end + 4, bytes.length));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The status code. */
    public int status() {
        return Integer.parseInt(head.substring(9, 12));
    }

    /** The value of the one field {@code name}, if present; fails when it is repeated. */
    public Optional<String> header(String name) {
        Optional<String> found = Optional.empty();
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
                if (found.isPresent()) {
                    throw new AssertionError("a repeated " + name + " field: " + head);
                }
                found = Optional.of(line.substring(colon + 1).strip());
            }
        }
        return found;
    }

    /** The content as text (UTF-8). */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Whether the head frames the content that came whole by {@code Content-Length}, without chunked coding. */
    public boolean framedByLength() {
        return header("Transfer-Encoding").isEmpty()
                && header("Content-Length").map(Long::parseLong).orElse(-1L) == body.length;
    }

    /** Whether the answer asks to close the connection. */
    public boolean saysClose() {
        return header("Connection")
                .map(v -> v.toLowerCase(Locale.ROOT).contains("close"))
                .orElse(false);
    }
}
