package grid.gateway.app.bench;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.tls.Tls;
import io.helidon.webclient.api.ConnectionKey;
import io.helidon.webclient.api.DnsAddressLookup;
import io.helidon.webclient.api.Proxy;
import io.helidon.webclient.api.TcpClientConnection;
import io.helidon.webclient.api.WebClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The lowest Helidon client layer, for the layer table of bench/side-by-side/layers.sh: pooled
 * {@link TcpClientConnection}s (as Helidon's HTTP/1 connection cache makes them) on which the HTTP/1.1 request head
 * and body are written by hand and the answer's head and {@code Content-Length} body are read by hand.
 *
 * <p>Measurement only: enough for the side-by-side's fixed nginx answer. It does not read chunked answers, check
 * framing beyond the status line and the length, time an answer out beyond the socket's read timeout, or speak TLS:
 * what the gateway would need for those is listed in docs/performance-notes.md.
 */
final class RawUpstream {
    private static final List<String> ALPN = List.of("http/1.1");
    /** Below this a body is copied after the head and both go out in one write (Helidon writes them apart). */
    private static final int ONE_WRITE = 16 * 1024;

    private final WebClient webClient;
    private final ConnectionKey key;
    private final String hostHeader;
    private final ConcurrentLinkedDeque<TcpClientConnection> idle = new ConcurrentLinkedDeque<>();

    RawUpstream(WebClient webClient, String host, int port) {
        this.webClient = webClient;
        this.key = ConnectionKey.create(
                "http",
                host,
                port,
                Tls.builder().enabled(false).build(),
                webClient.prototype().dnsResolver(),
                DnsAddressLookup.defaultLookup(),
                Proxy.noProxy());
        this.hostHeader = host + ":" + port;
    }

    /** One answer: status, headers in order (name, value pairs), and the body. */
    record Answer(int status, List<String> headers, byte[] body) {}

    /** Sends one request with a body on a pooled connection and reads a Content-Length answer. */
    Answer exchange(String method, String target, List<String> headers, byte[] body) {
        TcpClientConnection connection = connection();
        try {
            StringBuilder head = new StringBuilder(256)
                    .append(method)
                    .append(' ')
                    .append(target)
                    .append(" HTTP/1.1\r\nHost: ")
                    .append(hostHeader)
                    .append("\r\n");
            for (int i = 0; i < headers.size(); i += 2) {
                head.append(headers.get(i))
                        .append(": ")
                        .append(headers.get(i + 1))
                        .append("\r\n");
            }
            head.append("Connection: keep-alive\r\nContent-Length: ")
                    .append(body.length)
                    .append("\r\n\r\n");
            byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
            if (body.length <= ONE_WRITE) {
                byte[] all = new byte[headBytes.length + body.length];
                System.arraycopy(headBytes, 0, all, 0, headBytes.length);
                System.arraycopy(body, 0, all, headBytes.length, body.length);
                connection.writer().writeNow(BufferData.create(all));
            } else {
                connection.writer().writeNow(BufferData.create(headBytes));
                connection.writer().writeNow(BufferData.create(body));
            }
            Answer answer = read(connection.reader());
            connection.releaseResource();
            return answer;
        } catch (RuntimeException e) {
            connection.closeResource();
            throw e;
        }
    }

    private static Answer read(DataReader reader) {
        String status = reader.readLine();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IllegalStateException("not an HTTP/1.1 status line");
        }
        int code = Integer.parseInt(status, 9, 12, 10);
        List<String> headers = new ArrayList<>(16);
        long length = -1;
        for (String line = reader.readLine(); !line.isEmpty(); line = reader.readLine()) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IllegalStateException("malformed header line");
            }
            String name = line.substring(0, colon);
            String value = line.substring(colon + 1).strip();
            if (name.equalsIgnoreCase("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("transfer-encoding")) {
                throw new IllegalStateException("chunked answers are not read by this measurement client");
            }
            headers.add(name);
            headers.add(value);
        }
        if (length < 0 || length > Integer.MAX_VALUE) {
            throw new IllegalStateException("no usable Content-Length");
        }
        return new Answer(code, headers, length == 0 ? new byte[0] : reader.readBytes((int) length));
    }

    private TcpClientConnection connection() {
        TcpClientConnection connection;
        while ((connection = idle.pollFirst()) != null) {
            if (connection.isConnected()) {
                return connection;
            }
        }
        // As Helidon's HTTP/1 cache: a released connection is marked idle (its socket watches for a close) and
        // offered back.
        connection = TcpClientConnection.create(
                        webClient,
                        key,
                        ALPN,
                        c -> {
                            c.helidonSocket().idle();
                            idle.offerFirst(c);
                            return true;
                        },
                        c -> {})
                .connect();
        connection.readTimeout(Duration.ofSeconds(300));
        return connection;
    }
}
