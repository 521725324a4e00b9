package grid.gateway.app.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Which listener answers {@code GET /health/live} at an address: a gateway's admin listener (200), a gateway's client
 * listener (its refusal, which carries the {@code X-Request-Id} every client answer has), something else listening
 * there, or nobody (the connection refused). A test that binds listeners on port 0 asks this rather than whether a
 * connection is refused: the kernel may give two listeners on different addresses the same port number (127.0.0.1:p
 * and 127.0.0.2:p do not conflict), and another process may listen at an address and port the gateway does not hold.
 */
enum Answerer {
    CLIENT,
    ADMIN,
    OTHER,
    NOBODY;

    /** Who answers at {@code host}:{@code port}. */
    static Answerer at(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write("GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            String statusLine = String.valueOf(in.readLine());
            boolean requestId = false;
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                requestId |= line.toLowerCase(Locale.ROOT).startsWith("x-request-id:");
            }
            if (statusLine.startsWith("HTTP/1.1 200") && "live".equals(in.readLine())) {
                return ADMIN;
            }
            return requestId ? CLIENT : OTHER;
        } catch (ConnectException refused) {
            return NOBODY;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
