package grid.gateway.app.bench.streams;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * An HTTP/1.1 answer's status and its body as bytes: de-chunked when {@code Transfer-Encoding: chunked}, limited to its
 * {@code Content-Length}, or read until the connection closes. Enough for a load client; it checks the framing it
 * reads (a malformed chunk size is an error) because a proxy that breaks framing must show up as an error.
 *
 * <p>Not thread-safe.
 */
final class HttpBody {
    private final InputStream in;
    private final int status;
    private final boolean chunked;
    private final boolean closes;
    private long left; // bytes left in this chunk, or of the Content-Length; -1: until close
    private boolean ended;

    private HttpBody(InputStream in, int status, boolean chunked, long length, boolean closes) {
        this.in = in;
        this.status = status;
        this.chunked = chunked;
        this.closes = closes || (!chunked && length < 0);
        this.left = chunked ? 0 : length;
    }

    /** Reads the status line and headers from {@code in}. */
    static HttpBody read(InputStream in) throws IOException {
        String statusLine = line(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("bad status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        boolean chunked = false;
        boolean closes = parts[0].equals("HTTP/1.0");
        long length = -1;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            String name = header.substring(0, Math.max(colon, 0)).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            if (name.equals("transfer-encoding")
                    && value.toLowerCase(Locale.ROOT).contains("chunked")) {
                chunked = true;
            } else if (name.equals("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equals("connection")
                    && value.toLowerCase(Locale.ROOT).contains("close")) {
                closes = true;
            }
        }
        return new HttpBody(in, status, chunked, length, closes);
    }

    int status() {
        return status;
    }

    /** Whether the connection can carry another request once this body was read to its end. */
    boolean reusable() {
        return ended && !closes;
    }

    /** Reads body bytes into {@code buffer}; -1 at the body's end. */
    int read(byte[] buffer) throws IOException {
        if (ended) {
            return -1;
        }
        if (chunked && left == 0) {
            left = chunkSize();
            if (left == 0) {
                while (!line(in).isEmpty()) {
                    // trailer fields, ignored
                }
                ended = true;
                return -1;
            }
        }
        int wanted = left < 0 ? buffer.length : (int) Math.min(buffer.length, left);
        if (wanted == 0) {
            ended = true;
            return -1;
        }
        int n = in.read(buffer, 0, wanted);
        if (n < 0) {
            if (left < 0) {
                ended = true;
                return -1;
            }
            throw new IOException("answer cut short");
        }
        if (left > 0) {
            left -= n;
            if (chunked && left == 0 && !line(in).isEmpty()) {
                throw new IOException("no CRLF after a chunk");
            }
        }
        return n;
    }

    private long chunkSize() throws IOException {
        String size = line(in);
        int semicolon = size.indexOf(';');
        try {
            return Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
        } catch (NumberFormatException e) {
            throw new IOException("bad chunk size: " + size, e);
        }
    }

    /** One line without its CRLF (or LF), in ISO-8859-1. */
    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int b = SseExchange.readByte(in); b != '\n'; b = SseExchange.readByte(in)) {
            if (b != '\r') {
                line.append((char) b);
            }
            if (line.length() > 16 * 1024) {
                throw new IOException("line too long");
            }
        }
        return new String(line.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1);
    }
}
