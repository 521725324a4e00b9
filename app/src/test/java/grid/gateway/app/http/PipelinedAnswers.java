package grid.gateway.app.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Test fixture: requests written at once on one connection, their answers read as a strict client reads them: the
 * head, then the content its {@code Content-Length} frames, except for an answer to {@code HEAD}, which has none
 * (RFC 9110 §9.3.2). So a byte of content sent to a {@code HEAD} is read as the start of the next answer, and fails it.
 */
final class PipelinedAnswers {
    /** An answer as read: its status line and fields, and its content. */
    record Answer(int status, String head, String body) {
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

    private PipelinedAnswers() {}

    /**
     * Sends {@code methods.size()} bodiless requests ({@code method target}) on one connection to {@code port} in one
     * write, and reads an answer to each.
     */
    static List<Answer> exchange(int port, List<String> methods, List<String> targets) {
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < methods.size(); i++) {
            requests.append(methods.get(i)).append(' ').append(targets.get(i)).append(" HTTP/1.1\r\nHost: gw\r\n\r\n");
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            List<Answer> answers = new ArrayList<>();
            for (String method : methods) {
                answers.add(read(in, method.equals("HEAD")));
            }
            return answers;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Answer read(InputStream in, boolean head) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        while (!bytes.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException(
                        "the connection ended inside a head: " + bytes.toString(StandardCharsets.ISO_8859_1));
            }
            bytes.write(b);
        }
        String text = bytes.toString(StandardCharsets.ISO_8859_1);
        if (!text.startsWith("HTTP/1.1 ")) {
            throw new IOException("not an answer's head (content of the answer before?): " + text);
        }
        int status = Integer.parseInt(text.substring(9, 12));
        String lower = text.toLowerCase(Locale.ROOT);
        int at = lower.indexOf("\r\ncontent-length:");
        int length = at < 0
                ? 0
                : Integer.parseInt(
                        lower.substring(at + 17, lower.indexOf('\r', at + 2)).trim());
        byte[] body = head ? new byte[0] : in.readNBytes(length);
        return new Answer(status, text, new String(body, StandardCharsets.UTF_8));
    }
}
