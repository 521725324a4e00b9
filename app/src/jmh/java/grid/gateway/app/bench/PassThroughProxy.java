package grid.gateway.app.bench;

import io.helidon.common.uri.UriInfo;
import io.helidon.common.uri.UriPath;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webclient.api.ClientUri;
import io.helidon.webclient.api.Proxy;
import io.helidon.webclient.api.WebClient;
import io.helidon.webclient.http1.Http1Client;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.http1.Http1Config;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * The side-by-side benchmark's framework ceiling (bench/side-by-side/run.sh): a Helidon SE pass-through proxy with the
 * gateway's WebServer and WebClient settings and none of its work (no keying, routing, rewriting or metrics).
 *
 * <pre>
 *   java -cp 'app/target/libs/*:classes' grid.gateway.app.bench.PassThroughProxy PORT UPSTREAM_URL naive|tuned
 * </pre>
 *
 * <ul>
 *   <li>{@code naive}: the body read with {@code as(byte[].class)}, a fresh 16 KiB copy buffer per answer: what a
 *       first Helidon proxy looks like.
 *   <li>{@code tuned}: the body read into an array of its declared length and sent through the client's output stream
 *       with its length (no growing copy, no client write buffer), the answer read in pieces no longer than what is
 *       left of its announced length and copied through a buffer kept per (virtual) thread: what Helidon can do
 *       without copies.
 * </ul>
 *
 * <p>Not part of the product; compiled by run.sh against the app's libs (and by {@code -Pbench}).
 */
public final class PassThroughProxy {
    private static final int COPY_BUFFER = 16 * 1024;
    /** tuned: the body goes out through the client's stream with its length, as the gateway sends it. */
    private final boolean streamedSend;

    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[COPY_BUFFER]);

    private final Http1Client client;
    private final String scheme;
    private final String host;
    private final int port;
    private final boolean tuned;

    private PassThroughProxy(String upstream, boolean tuned) {
        java.net.URI base = java.net.URI.create(upstream);
        this.scheme = base.getScheme();
        this.host = base.getHost();
        this.port = base.getPort();
        this.tuned = tuned;
        this.streamedSend = tuned;
        // The gateway's UpstreamForwarder settings.
        this.client = WebClient.builder()
                // tuned: no write buffer, as the gateway's own client (a request is not copied into it first)
                .writeBufferSize(tuned ? 0 : 4096)
                .followRedirects(false)
                .sendExpectContinue(false)
                .connectionCacheSize(256)
                .shareConnectionCache(false)
                .proxy(Proxy.noProxy())
                .socketOptions(s ->
                        s.tcpNoDelay(true).connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(300)))
                .build()
                .client(Http1Client.PROTOCOL);
    }

    /** Starts the proxy; args: port, upstream URL, naive or tuned. */
    public static void main(String[] args) {
        if (args.length != 3 || !(args[2].equals("naive") || args[2].equals("tuned"))) {
            System.err.println("usage: PassThroughProxy PORT UPSTREAM_URL naive|tuned");
            System.exit(2);
        }
        PassThroughProxy proxy = new PassThroughProxy(args[1], args[2].equals("tuned"));
        // The gateway's client listener settings (Listeners.client).
        WebServer server = WebServer.builder()
                .host("127.0.0.1")
                .port(Integer.parseInt(args[0]))
                .connectionOptions(o -> o.tcpNoDelay(true))
                .protocolsDiscoverServices(false)
                .addProtocol(Http1Config.builder().build())
                .routing(r -> r.any(proxy::handle))
                .build()
                .start();
        System.out.println("pass-through (" + args[2] + ") on " + server.port() + " -> " + args[1]);
    }

    private void handle(ServerRequest request, ServerResponse response) {
        byte[] body = !request.content().hasEntity()
                ? new byte[0]
                : tuned ? readDeclared(request) : request.content().as(byte[].class);
        String query = request.query().rawValue();
        String target = request.path().rawPath() + (query.isEmpty() ? "" : "?" + query);
        ClientUri uri = ClientUri.create(UriInfo.builder()
                .scheme(scheme)
                .host(host)
                .port(port)
                .path(UriPath.create(target))
                .build());
        var outgoing = client.method(request.prologue().method()).uri(uri);
        outgoing.headers(out -> {
            for (Header header : request.headers()) {
                if (!header.headerName().equals(HeaderNames.HOST)
                        && !header.headerName().equals(HeaderNames.CONTENT_LENGTH)
                        && !header.headerName().equals(HeaderNames.CONNECTION)) {
                    out.add(header);
                }
            }
        });
        if (streamedSend) {
            outgoing.header(HeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
        }
        try (Http1ClientResponse answer = streamedSend
                ? outgoing.outputStream(os -> {
                    os.write(body);
                    os.close();
                })
                : outgoing.submit(body)) {
            response.status(Status.create(answer.status().code()));
            for (Header header : answer.headers()) {
                if (!header.headerName().equals(HeaderNames.CONNECTION)
                        && !header.headerName().equals(HeaderNames.TRANSFER_ENCODING)
                        && !header.headerName().equals(HeaderNames.CONTENT_LENGTH)) {
                    response.header(header);
                }
            }
            answer.headers().contentLength().ifPresent(response::contentLength);
            byte[] buffer = tuned ? BUFFERS.get() : new byte[COPY_BUFFER];
            // tuned: each read asks for at most what is left of the announced length (the WebClient allocates an
            // array of the length asked for on every read).
            long left = tuned ? answer.headers().contentLength().orElse(-1) : -1;
            try (InputStream in = answer.inputStream();
                    OutputStream out = response.outputStream()) {
                int n;
                while ((n = in.read(
                                buffer, 0, left < 0 ? buffer.length : (int) Math.max(1, Math.min(buffer.length, left))))
                        >= 0) {
                    out.write(buffer, 0, n);
                    left -= left < 0 ? 0 : n;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The body in one array of its declared length (no growing, no trimming); else Helidon's own read. */
    private static byte[] readDeclared(ServerRequest request) {
        long declared = request.headers().contentLength().orElse(-1);
        if (declared < 0 || declared > Integer.MAX_VALUE - 16) {
            return request.content().as(byte[].class);
        }
        byte[] body = new byte[(int) declared];
        try (InputStream in = request.content().inputStream()) {
            int size = in.readNBytes(body, 0, body.length);
            if (size != body.length) {
                throw new IOException("body ended after " + size + " of " + declared + " bytes");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return body;
    }
}
