package grid.gateway.app.forward;

import io.helidon.common.tls.Tls;
import io.helidon.http.HeaderNames;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * One GET of a page on a connection of its own, closed after it: how the queue scraper reads an engine's
 * {@code /metrics}, with the reader the gateway relays answers with (docs/design.md §H18).
 *
 * <pre>
 *   connect (lookup, TCP, TLS handshake within the connect timeout) → GET, Connection: close
 *     → heads until a final one (HeadParser: interim 1xx skipped, at most 16 KiB, a malformed head refused)
 *     → the body as its framing delimits it, read as the caller asks (AnswerBody): never more than asked at a time
 * </pre>
 *
 * <p>The body is read a caller's buffer at a time whatever the framing announced, so the caller's limit on the page
 * bounds what is held: a chunk announced as 2 GiB is read like any other body, not gathered whole before its first
 * byte is handed on. Each read of the head and the body waits at most the read timeout; a caller that needs a whole
 * deadline interrupts its thread (a blocked read of a channel's socket then closes it).
 *
 * <p>Thread-safe: each GET has a connection of its own, used by its caller's thread.
 */
public final class PageGet {
    private final Connector connector;
    private final int readMillis;

    /** GETs that connect within {@code connectTimeout} (its deadline run on {@code watchdog}), each read within {@code readTimeout}. */
    public PageGet(Duration connectTimeout, Duration readTimeout, ScheduledExecutorService watchdog) {
        this.connector = new Connector(connectTimeout, watchdog);
        this.readMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, readTimeout.toMillis()));
    }

    /** A final answer's status and body; closing it closes its connection. */
    public static final class Page implements AutoCloseable {
        private final UpstreamConnection connection;
        private final AnswerHead head;
        private final AnswerBody body;

        private Page(UpstreamConnection connection, AnswerHead head) {
            this.connection = connection;
            this.head = head;
            this.body = new AnswerBody(connection.reader(), head);
        }

        /** The final status (an interim 1xx is never one). */
        public int status() {
            return head.status();
        }

        /**
         * The content codings the page says it is in ({@code Content-Encoding}), {@code identity} left out: empty for a
         * page as written. The GET asks for none ({@code Accept-Encoding: identity}), so any other is one it cannot
         * read.
         */
        public List<String> contentCodings() {
            List<String> codings = new ArrayList<>();
            for (String value : head.headers().values(HeaderNames.CONTENT_ENCODING)) {
                for (String coding : value.split(",", -1)) {
                    String token = coding.strip();
                    if (!token.isEmpty() && !token.equalsIgnoreCase("identity")) {
                        codings.add(token);
                    }
                }
            }
            return codings;
        }

        /** The body, exactly as its framing delimits it; each read asks the socket for at most what it is given room for. */
        public InputStream body() {
            return body;
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    /**
     * GETs {@code uri} (http or https; {@code tls} for https, or null for the JDK's trust and the HTTPS identity check)
     * and reads the final answer's head.
     *
     * @throws NotConnected if it cannot connect (nothing accepts at the address, or no handshake within the timeout)
     * @throws IOException if it cannot send or read a final head that can be relayed
     */
    public Page get(URI uri, @Nullable Tls tls) throws IOException {
        boolean https = "https".equalsIgnoreCase(uri.getScheme());
        Origin origin = Origin.of(uri, https ? (tls != null ? tls : JdkTls.get()) : null);
        UpstreamConnection connection;
        try {
            connection = connector.open(origin);
        } catch (IOException notConnected) {
            throw new NotConnected(notConnected);
        }
        try {
            connection.readTimeout(readMillis);
            byte[] request = ("GET " + target(uri) + " HTTP/1.1\r\nHost: " + origin.authority()
                            + "\r\nAccept: text/plain\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            connection.write(request, 0, request.length);
            AnswerReader reader = connection.reader();
            reader.beginExchange();
            return new Page(connection, HeadParser.read(reader, false));
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** The GET could not connect: refused, unreachable, or no connection (or TLS handshake) within the timeout. */
    public static final class NotConnected extends IOException {
        private static final long serialVersionUID = 1L;

        NotConnected(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** The request target: the URI's raw path ({@code /} when empty) and query. */
    private static String target(URI uri) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }
}
