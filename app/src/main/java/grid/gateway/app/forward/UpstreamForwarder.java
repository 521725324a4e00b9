package grid.gateway.app.forward;

import grid.gateway.app.access.RequestIds;
import grid.gateway.app.config.UpstreamSettings;
import grid.gateway.app.trace.RequestTrace;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.common.context.Context;
import io.helidon.common.context.Contexts;
import io.helidon.common.tls.Tls;
import io.helidon.common.uri.UriInfo;
import io.helidon.common.uri.UriPath;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.Method;
import io.helidon.webclient.api.ClientUri;
import io.helidon.webclient.api.Proxy;
import io.helidon.webclient.http1.Http1Client;
import io.helidon.webclient.http1.Http1ClientProtocolConfig;
import io.helidon.webclient.http1.Http1ClientRequest;
import io.helidon.webclient.http1.Http1ClientResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Sends one request to one backend cluster with the Helidon WebClient (docs/design.md §9).
 *
 * <ul>
 *   <li>The raw path and query go out byte-exact: the client is given a pre-built {@link UriPath} (reference
 *       docs/design.md §H1: other forms decode {@code %2F} and reorder the query).
 *   <li>{@code X-Request-Id} is the request's id (the client's when well-formed, else the gateway's).
 *   <li>Hop-by-hop headers and {@code Host}/{@code Content-Length}/{@code Expect} are not copied; the body is sent
 *       as bytes with its own length.
 *   <li>Connection pooling with TCP_NODELAY (docs/design.md §H5, §H9), no proxy, no redirects, a connect timeout, and the first-byte
 *       timeout as the read timeout. A failure to connect (a connect timeout included) is told apart from a timeout and from a broken
 *       answer (docs/design.md §H3): {@link UpstreamFailure}.
 * </ul>
 *
 * <p>Thread-safe: the WebClient is.
 */
public final class UpstreamForwarder {
    private final Http1Client client;
    /** The Helidon context every request is sent in: the client has no services to read or write it. */
    private final Context sendContext = Context.create();

    private final UpstreamSettings settings;
    private final MonotonicClock clock;
    private final Function<BackendCluster, Optional<Tls>> tls;
    private final TlsHandshakeFailure handshakes = new TlsHandshakeFailure();

    /** A forwarder with its own connection pool and the JDK's TLS defaults for https clusters. */
    public UpstreamForwarder(UpstreamSettings settings, MonotonicClock clock) {
        this(settings, clock, cluster -> Optional.empty());
    }

    /**
     * A forwarder with its own connection pool; {@code clock} times the wait for response headers, {@code tls} gives
     * each https cluster's TLS (empty: the JDK's trust). Pooled connections are kept per TLS, so a rotated
     * certificate is used by new connections.
     */
    public UpstreamForwarder(
            UpstreamSettings settings, MonotonicClock clock, Function<BackendCluster, Optional<Tls>> tls) {
        this.settings = settings;
        this.clock = clock;
        this.tls = tls;
        this.client = Http1Client.builder()
                .followRedirects(false)
                // No client services (none configured, none discovered on the class path): one context can serve
                // every request (sent()).
                .servicesDiscoverServices(false)
                .sendExpectContinue(false)
                .connectionCacheSize(settings.maxConnectionsPerCluster())
                .shareConnectionCache(false)
                // No write buffer: a request (head and body, already one buffer) goes to the socket as it is,
                // instead of being copied into a 4 KiB connection buffer first when it fits there.
                .writeBufferSize(0)
                // Backend clusters are reached directly. The default (the JVM's system proxy selector) parsed a URI
                // and consulted the selector on every request.
                .proxy(Proxy.noProxy())
                // The client's headers were checked by the server as they arrived, and the ones the gateway adds are
                // well-formed by construction, so they are not checked a second time on the way out; a cluster's
                // answer headers still are, as they are read. Set on the HTTP/1 client itself: WebClient's
                // addProtocolConfig looks its configs up by protocol id ("http/1.1"), which never matches this
                // config's type ("http_1_1"), so there it would be silently ignored (Helidon 4.5).
                .protocolConfig(Http1ClientProtocolConfig.builder()
                        .validateRequestHeaders(false)
                        .validateResponseHeaders(true)
                        .build())
                // The URL's host as written reaches the TLS identity check (an IP literal is not reverse-resolved).
                .dnsResolver(HostKeepingResolver.INSTANCE)
                .socketOptions(s -> s.tcpNoDelay(true)
                        .connectTimeout(settings.connectTimeout())
                        .readTimeout(settings.firstByteTimeout()))
                .build();
    }

    /**
     * Sends {@code request} to {@code cluster}: its target (raw path and query, tags stripped), its headers less
     * the hop-by-hop ones, {@code X-Forwarded-For} with the client's address appended, and its body.
     */
    public Attempt send(BackendCluster cluster, ForwardRequest request) {
        Method method = request.method();
        String target = request.target();
        Headers headers = request.headers();
        String peer = request.peer();
        byte[] body = request.body();
        URI base = cluster.url();
        String basePath = base.getRawPath() == null ? "" : stripTrailingSlash(base.getRawPath());
        ClientUri uri = ClientUri.create(UriInfo.builder()
                .scheme(base.getScheme())
                .host(base.getHost())
                .port(base.getPort() < 0 ? defaultPort(base) : base.getPort())
                .path(UriPath.create(basePath + target))
                .build());
        Http1ClientRequest outgoing =
                client.method(method).uri(uri).followRedirects(false).readTimeout(settings.firstByteTimeout());
        if ("https".equalsIgnoreCase(base.getScheme())) {
            tls.apply(cluster).ifPresent(outgoing::tls);
        }
        HopByHopHeaders hopByHop = HopByHopHeaders.of(headers);
        RequestTrace trace = request.trace();
        outgoing.headers(out -> {
            for (Header header : headers) {
                if (!hopByHop.drops(header) && !isEndToEndExcluded(header) && !trace.replaces(header.name())) {
                    out.add(header);
                }
            }
            trace.outgoing().forEach((name, value) -> out.set(HeaderNames.create(name), value));
            String forwarded = headers.first(HeaderNames.X_FORWARDED_FOR)
                    .map(v -> v + ", ")
                    .orElse("");
            out.set(HeaderNames.X_FORWARDED_FOR, forwarded + peer);
            // The request id the client is given back: the engine (vLLM) takes it as its own request id.
            out.set(RequestIds.HEADER, request.access().requestId());
            if (body.length > 0) {
                out.set(HeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
            }
        });
        long start = clock.nanoTime();
        Http1ClientResponse answer;
        try {
            answer = sent(() -> submit(outgoing, body));
        } catch (RuntimeException failure) {
            Optional<String> handshake = TlsHandshakeFailure.reason(failure);
            if (handshake.isPresent()) {
                handshakes.failed(cluster.id(), base.getHost() + ":" + uri.port(), handshake.get());
                return new Attempt.Failed(UpstreamFailure.CONNECT);
            }
            return new Attempt.Failed(UpstreamFailure.of(failure));
        }
        handshakes.succeeded(cluster.id());
        if (answer.headers().contains(HeaderNames.TRANSFER_ENCODING)
                && answer.headers().contains(HeaderNames.CONTENT_LENGTH)) {
            // RFC 9112 §6.3: both framings in one answer may be response splitting; such an answer is an error,
            // and closing it unread closes the connection, so it is never reused.
            answer.close();
            return new Attempt.Failed(UpstreamFailure.RESET);
        }
        return new Attempt.Answered(answer, Duration.ofNanos(clock.nanoTime() - start));
    }

    /**
     * Closes the pooled upstream connections (at shutdown, once no request is in flight); a connection still in use
     * closes when its answer is closed.
     */
    public void close() {
        client.closeResource();
    }

    /**
     * Runs {@code send} inside {@link #sendContext}: the WebClient hands the calling thread's
     * Helidon context to its services and creates a new one (with a generated id) for every request when the thread
     * has none, as the gateway's request threads do not. The client has no services, so nothing reads or writes it,
     * and one context serves every request.
     */
    private Http1ClientResponse sent(Supplier<Http1ClientResponse> send) {
        // runInContext rethrows a RuntimeException as it is, so failures are sorted as before.
        return Contexts.runInContext(sendContext, send::get);
    }

    /** Sends the request: an empty body with {@code submit}, any other through {@link #writeBody}. */
    private static Http1ClientResponse submit(Http1ClientRequest outgoing, byte[] body) {
        return body.length == 0 ? outgoing.submit(body) : outgoing.outputStream(out -> writeBody(out, body));
    }

    /**
     * Writes the body through the client's output stream: with the length announced, it goes to the socket as it
     * is. {@code submit(byte[])} first copied it, with the request head, into a buffer that grows by doubling.
     */
    private static void writeBody(OutputStream out, byte[] body) throws IOException {
        out.write(body);
        out.close();
    }

    private static boolean isEndToEndExcluded(Header header) {
        String name = header.name();
        return name.equalsIgnoreCase("host")
                || name.equalsIgnoreCase("content-length")
                || name.equalsIgnoreCase("expect")
                || name.equalsIgnoreCase("x-forwarded-for");
    }

    private static String stripTrailingSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private static int defaultPort(URI base) {
        return "https".equalsIgnoreCase(base.getScheme()) ? 443 : 80;
    }
}
