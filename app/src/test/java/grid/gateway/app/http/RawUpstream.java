package grid.gateway.app.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test fixture: an engine on a raw {@link ServerSocket} that records every byte it receives, split into requests by
 * their {@code Content-Length}, and answers each with a small JSON 200. Unlike a simulated engine it sees exactly
 * what the gateway wrote, so a test can assert that nothing at all arrived, or that the body bytes are identical.
 */
final class RawUpstream implements AutoCloseable {
    private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
                    + "\r\n{\"ok\":true}")
            .getBytes(StandardCharsets.US_ASCII);

    /** One request as received: the head (request line and headers) and the body bytes. */
    record Request(String head, byte[] body) {
        String target() {
            return head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
        }
    }

    private final ServerSocket server;
    private final List<Request> requests = new ArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final ByteArrayOutputStream raw = new ByteArrayOutputStream();

    RawUpstream() {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().start(this::accept);
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** Every request received so far. */
    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    /** Every byte received so far, on any connection. */
    synchronized int bytesReceived() {
        return raw.size();
    }

    int connections() {
        return connections.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.incrementAndGet();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            while (true) {
                String head = readHead(in);
                if (head == null) {
                    return;
                }
                byte[] body = in.readNBytes(contentLength(head));
                synchronized (this) {
                    requests.add(new Request(head, body));
                    raw.writeBytes(body);
                }
                out.write(ANSWER);
                out.flush();
            }
        } catch (IOException gone) {
            // the gateway closed the connection
        }
    }

    private String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            head.write(c);
            synchronized (this) {
                raw.write(c);
            }
            if (head.size() >= 4 && endsWithBlankLine(head.toByteArray())) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static boolean endsWithBlankLine(byte[] b) {
        int n = b.length;
        return b[n - 4] == '\r' && b[n - 3] == '\n' && b[n - 2] == '\r' && b[n - 1] == '\n';
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing a test server
        }
    }
}
