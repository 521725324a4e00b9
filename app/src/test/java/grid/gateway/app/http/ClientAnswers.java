package grid.gateway.app.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: the answers on one client connection, read one after another as {@link ClientRequestsPropertyTest}
 * needs them: interim (1xx) answers skipped and counted, each final answer's body read by its framing, the end of the
 * connection (a close or a reset) reported as no answer. A read that waits longer than the socket's timeout fails the
 * trial as a hang.
 */
final class ClientAnswers {
    /** A final answer: status, head, body, whether its framing completed. */
    record Answer(int status, String head, String body, boolean complete) {
        boolean closes() {
            return head.toLowerCase(Locale.ROOT).contains("\r\nconnection: close\r\n");
        }

        @Override
        public String toString() {
            return (head + body).replace("\r\n", "\\r\\n");
        }
    }

    private final InputStream in;
    private @Nullable Answer pushedBack;
    /** Interim answers read. */
    int interim;
    /** Whether the connection ended (end of stream or a reset). */
    boolean ended;

    ClientAnswers(InputStream in) {
        this.in = in;
    }

    /** Gives {@code answer} again on the next {@link #next}. */
    void pushBack(Answer answer) {
        pushedBack = answer;
    }

    /** The next final answer; null when the connection ended before one began. */
    @Nullable
    Answer next() throws IOException {
        if (pushedBack != null) {
            Answer answer = pushedBack;
            pushedBack = null;
            return answer;
        }
        while (true) {
            String head = head();
            if (head == null) {
                return null;
            }
            int status = Integer.parseInt(head.substring(9, 12));
            if (status >= 100 && status < 200) {
                interim++;
                continue;
            }
            return body(status, head);
        }
    }

    /** Whether the connection ends with no more bytes (within the socket's timeout). */
    boolean endsNow() throws IOException {
        if (pushedBack != null) {
            return false;
        }
        try {
            int b = in.read();
            ended = b < 0;
            return ended;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (SocketException reset) {
            ended = true;
            return true;
        }
    }

    private @Nullable String head() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        try {
            int b;
            while ((b = in.read()) >= 0) {
                head.write(b);
                int n = head.size();
                if (n >= 4 && head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                    String text = head.toString(StandardCharsets.ISO_8859_1);
                    if (!text.startsWith("HTTP/1.1 ")) {
                        throw new AssertionError("not an HTTP/1.1 answer: " + text);
                    }
                    return text;
                }
            }
        } catch (SocketException reset) {
            // ended
        }
        ended = true;
        if (head.size() > 0) {
            throw new AssertionError(
                    "the connection ended inside an answer's head: " + head.toString(StandardCharsets.ISO_8859_1));
        }
        return null;
    }

    private Answer body(int status, String head) throws IOException {
        String lower = head.toLowerCase(Locale.ROOT);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean complete;
        try {
            if (status == 204 || status == 304) {
                complete = true;
            } else if (lower.contains("\r\ntransfer-encoding: chunked\r\n")) {
                complete = chunks(body);
            } else if (lower.contains("\r\ncontent-length:")) {
                int at = lower.indexOf("\r\ncontent-length:") + 17;
                int length = Integer.parseInt(
                        lower.substring(at, lower.indexOf("\r\n", at)).trim());
                byte[] bytes = in.readNBytes(length);
                body.write(bytes);
                complete = bytes.length == length;
            } else {
                body.write(in.readAllBytes());
                ended = true;
                complete = true;
            }
        } catch (SocketException reset) {
            ended = true;
            complete = false;
        }
        return new Answer(status, head, body.toString(StandardCharsets.UTF_8), complete);
    }

    private boolean chunks(ByteArrayOutputStream body) throws IOException {
        while (true) {
            String size = line();
            if (size == null || size.isEmpty()) {
                return false;
            }
            int n = Integer.parseInt(size.trim(), 16);
            if (n == 0) {
                return line() != null;
            }
            byte[] chunk = in.readNBytes(n);
            body.write(chunk);
            if (chunk.length < n || line() == null) {
                return false;
            }
        }
    }

    private @Nullable String line() throws IOException {
        return WireLines.line(in);
    }
}
