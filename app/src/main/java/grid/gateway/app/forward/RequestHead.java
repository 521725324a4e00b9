package grid.gateway.app.forward;

import java.util.Arrays;

/**
 * The bytes of one request head as sent upstream: the request line and field lines, ISO-8859-1 (every char below 256
 * is its own byte, so a target or value goes out as it came in), CRLF line ends. Built once per request, so a request
 * sent again on a fresh connection sends the same bytes.
 *
 * <p>Not thread-safe; one per request.
 */
final class RequestHead {
    private byte[] bytes = new byte[1024];
    private int size;

    /** A head that starts with the request line {@code method target HTTP/1.1}. */
    RequestHead(String method, String target) {
        append(method);
        append(" ");
        append(target);
        append(" HTTP/1.1\r\n");
    }

    /** Adds the field line {@code name: value}. */
    RequestHead field(String name, String value) {
        append(name);
        append(": ");
        append(value);
        append("\r\n");
        return this;
    }

    /**
     * The head, ended by its blank line, followed by {@code body} when the body is short enough to share one write
     * ({@code withBody}); else the head alone.
     */
    byte[] end(byte[] body, boolean withBody) {
        append("\r\n");
        if (!withBody) {
            return Arrays.copyOf(bytes, size);
        }
        byte[] all = Arrays.copyOf(bytes, size + body.length);
        System.arraycopy(body, 0, all, size, body.length);
        return all;
    }

    private void append(String text) {
        int length = text.length();
        if (size + length > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + length));
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            bytes[size++] = c < 256 ? (byte) c : (byte) '?';
        }
    }
}
