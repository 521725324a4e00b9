package grid.gateway.app.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Which listener answers at an address: an admin listener answers {@code GET /health/live} with 200, a client listener
 * (or anything else listening there) does not, and nobody refuses the connection. A test that binds listeners on
 * port 0 asks this rather than whether a connection is refused: the kernel may give two listeners on different
 * addresses the same port number (127.0.0.1:p and 127.0.0.2:p do not conflict), and another process may listen at an
 * address and port the gateway does not hold.
 */
enum Answerer {
    CLIENT,
    ADMIN,
    NOBODY;

    /** Who answers at {@code host}:{@code port}. */
    static Answerer at(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write("GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            String statusLine = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            return String.valueOf(statusLine).startsWith("HTTP/1.1 200") ? ADMIN : CLIENT;
        } catch (ConnectException refused) {
            return NOBODY;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
