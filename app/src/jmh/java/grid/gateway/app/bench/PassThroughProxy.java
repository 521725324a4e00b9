package grid.gateway.app.bench;

import io.helidon.common.context.Context;
import io.helidon.common.context.Contexts;
import io.helidon.common.uri.UriInfo;
import io.helidon.common.uri.UriPath;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.http.media.MediaContext;
import io.helidon.webclient.api.ClientRequest;
import io.helidon.webclient.api.ClientUri;
import io.helidon.webclient.api.HttpClient;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.api.Proxy;
import io.helidon.webclient.api.WebClient;
import io.helidon.webclient.api.WebClientConfig;
import io.helidon.webclient.http1.Http1Client;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.http1.Http1Config;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.StandardSocketOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The side-by-side benchmark's framework ceiling (bench/side-by-side/run.sh) and the layer table's variants
 * (bench/side-by-side/layers.sh): a Helidon SE pass-through proxy with the gateway's WebServer and WebClient settings
 * and none of its work (no keying, routing, rewriting or metrics).
 *
 * <pre>
 *   java -cp 'app/target/libs/*:classes' grid.gateway.app.bench.PassThroughProxy PORT UPSTREAM_URL VARIANT
 * </pre>
 *
 * <ul>
 *   <li>{@code naive}: the body read with {@code as(byte[].class)}, a fresh 16 KiB copy buffer per answer: what a
 *       first Helidon proxy looks like.
 *   <li>{@code tuned}: the body read into an array of its declared length and sent through the client's output stream
 *       with its length (no growing copy, no client write buffer), the answer read in pieces no longer than what is
 *       left of its announced length and copied through a buffer kept per (virtual) thread: what Helidon can do
 *       without copies.
 *   <li>every other variant ({@link #VARIANTS}): {@code tuned} with ONE thing changed, client ({@code c-}) or server
 *       ({@code s-}) side, so that its cost against {@code tuned} is that one thing's.
 * </ul>
 *
 * <p>Not part of the product; compiled by run.sh and layers.sh against the app's libs (and by {@code -Pbench}).
 */
public final class PassThroughProxy {
    private static final int COPY_BUFFER = 16 * 1024;
    private static final int SOCKET_BUFFER = 256 * 1024;

    /** The variants beside naive and tuned, each with what it changes against tuned (printed by layers.sh). */
    static final Map<String, String> VARIANTS = variants();

    private static Map<String, String> variants() {
        Map<String, String> variants = new LinkedHashMap<>();
        variants.put("control", "nothing: tuned again in a JVM of its own, the method's noise floor");
        variants.put(
                "c-shared-cache", "client: the connection cache shared by all clients (shareConnectionCache(true))");
        variants.put(
                "c-write-buffer-4k",
                "client: a 4 KiB connection write buffer (writeBufferSize(4096), Helidon's default)");
        variants.put("c-socket-buffers", "client: 256 KiB socket send and receive buffers");
        variants.put("c-empty-media", "client: an empty MediaContext (no discovered or default media supports)");
        variants.put(
                "c-no-services",
                "client: no discovered services, every request sent in one shared Context (the gateway's)");
        variants.put(
                "c-http1-builder",
                "client: Http1Client.builder() itself instead of WebClient.builder()...client(Http1Client.PROTOCOL)");
        variants.put(
                "c-webclient", "client: the WebClient facade (protocol chosen per request) instead of its Http1Client");
        variants.put(
                "c-raw", "client: pooled TcpClientConnections, HTTP/1.1 head and body framed by hand (RawUpstream)");
        variants.put(
                "s-write-queue",
                "server: writeQueueLength(32) (default 0: each write goes to the socket on the handler's thread)");
        variants.put("s-smart-async", "server: writeQueueLength(32) with smartAsyncWrites(true)");
        variants.put(
                "s-write-buffer-16k",
                "server: writeBufferSize(16384) (the response stream's buffer, allocated per response; default 4096)");
        variants.put("s-write-buffer-1k", "server: writeBufferSize(1024) (the response stream's buffer)");
        variants.put("s-socket-buffers", "server: 256 KiB send and receive buffers on each connection");
        variants.put("s-listener-rcvbuf", "server: the listener's SO_RCVBUF 256 KiB (inherited by accepted sockets)");
        variants.put(
                "s-plain-sockets", "server: useNio(false) (plain sockets instead of NIO socket channels, the default)");
        variants.put(
                "s-no-features", "server: no discovered features (featuresDiscoverServices(false), the gateway's)");
        variants.put(
                "s-send-bytes",
                "server: the answer read whole and sent with response.send(bytes) instead of outputStream()");
        return Collections.unmodifiableMap(variants);
    }

    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[COPY_BUFFER]);

    private final HttpClient<? extends ClientRequest<?>> client;
    private final RawUpstream raw;
    private final Context sendContext;
    private final String scheme;
    private final String host;
    private final int port;
    private final boolean tuned;
    private final boolean sendBytes;

    private PassThroughProxy(String upstream, String variant) {
        java.net.URI base = java.net.URI.create(upstream);
        this.scheme = base.getScheme();
        this.host = base.getHost();
        this.port = base.getPort();
        this.tuned = !variant.equals("naive");
        this.sendBytes = variant.equals("s-send-bytes");
        this.sendContext = variant.equals("c-no-services") ? Context.create() : null;
        // The gateway's UpstreamForwarder settings as this baseline copies them (the gateway has more: the c-
        // variants measure them one at a time).
        WebClientConfig.Builder builder = WebClient.builder()
                // tuned: no write buffer, as the gateway's own client (a request is not copied into it first)
                .writeBufferSize(tuned && !variant.equals("c-write-buffer-4k") ? 0 : 4096)
                .followRedirects(false)
                .sendExpectContinue(false)
                .connectionCacheSize(256)
                .shareConnectionCache(variant.equals("c-shared-cache"))
                .proxy(Proxy.noProxy())
                .socketOptions(s -> {
                    s.tcpNoDelay(true).connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(300));
                    if (variant.equals("c-socket-buffers")) {
                        s.socketReceiveBufferSize(SOCKET_BUFFER).socketSendBufferSize(SOCKET_BUFFER);
                    }
                });
        if (variant.equals("c-empty-media")) {
            builder.mediaContext(MediaContext.builder()
                    .mediaSupportsDiscoverServices(false)
                    .registerDefaults(false)
                    .build());
        }
        if (variant.equals("c-no-services")) {
            builder.servicesDiscoverServices(false);
        }
        WebClient webClient = builder.build();
        this.raw = variant.equals("c-raw") ? new RawUpstream(webClient, host, port) : null;
        if (variant.equals("c-webclient")) {
            this.client = webClient;
        } else if (variant.equals("c-http1-builder")) {
            this.client = Http1Client.builder()
                    .writeBufferSize(0)
                    .followRedirects(false)
                    .sendExpectContinue(false)
                    .connectionCacheSize(256)
                    .shareConnectionCache(false)
                    .proxy(Proxy.noProxy())
                    .socketOptions(s -> s.tcpNoDelay(true)
                            .connectTimeout(Duration.ofSeconds(2))
                            .readTimeout(Duration.ofSeconds(300)))
                    .build();
        } else {
            this.client = webClient.client(Http1Client.PROTOCOL);
        }
    }

    /** Starts the proxy; args: port, upstream URL, variant; or {@code --list}: the variants, one a line. */
    public static void main(String[] args) {
        if (args.length == 1 && args[0].equals("--list")) {
            VARIANTS.forEach((name, what) -> System.out.println(name + "\t" + what));
            return;
        }
        if (args.length != 3
                || !(args[2].equals("naive") || args[2].equals("tuned") || VARIANTS.containsKey(args[2]))) {
            System.err.println(
                    "usage: PassThroughProxy PORT UPSTREAM_URL naive|tuned|" + String.join("|", VARIANTS.keySet()));
            System.exit(2);
        }
        String variant = args[2];
        PassThroughProxy proxy = new PassThroughProxy(args[1], variant);
        // The gateway's client listener settings (Listeners.client).
        WebServerConfig.Builder builder = WebServer.builder()
                .host("127.0.0.1")
                .port(Integer.parseInt(args[0]))
                .connectionOptions(o -> {
                    o.tcpNoDelay(true);
                    if (variant.equals("s-socket-buffers")) {
                        o.socketReceiveBufferSize(SOCKET_BUFFER).socketSendBufferSize(SOCKET_BUFFER);
                    }
                })
                .protocolsDiscoverServices(false)
                .addProtocol(Http1Config.builder().build())
                .routing(r -> r.any(proxy::handle));
        switch (variant) {
            case "s-write-queue" -> builder.writeQueueLength(32);
            case "s-smart-async" -> builder.writeQueueLength(32).smartAsyncWrites(true);
            case "s-write-buffer-16k" -> builder.writeBufferSize(16 * 1024);
            case "s-write-buffer-1k" -> builder.writeBufferSize(1024);
            case "s-listener-rcvbuf" ->
                builder.addListenerSocketOptions(Map.of(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER));
            case "s-plain-sockets" -> builder.useNio(false);
            case "s-no-features" -> builder.featuresDiscoverServices(false);
            default -> {}
        }
        WebServerConfig config = builder.buildPrototype();
        WebServer server = WebServer.create(config).start();
        // The effective settings, so that a table can say what the defaults were.
        System.out.println("pass-through (" + variant + ") on " + server.port() + " -> " + args[1]
                + "; writeQueueLength " + config.writeQueueLength() + ", smartAsyncWrites " + config.smartAsyncWrites()
                + ", writeBufferSize " + config.writeBufferSize() + ", listener socket options "
                + config.listenerSocketOptions() + ", maxInMemoryEntity "
                + config.maxInMemoryEntity() + ", useNio " + config.useNio() + ", features "
                + config.features().size());
    }

    private void handle(ServerRequest request, ServerResponse response) {
        byte[] body = !request.content().hasEntity()
                ? new byte[0]
                : tuned ? readDeclared(request) : request.content().as(byte[].class);
        String query = request.query().rawValue();
        String target = request.path().rawPath() + (query.isEmpty() ? "" : "?" + query);
        if (raw != null) {
            relayRaw(request, response, target, body);
            return;
        }
        ClientUri uri = ClientUri.create(UriInfo.builder()
                .scheme(scheme)
                .host(host)
                .port(port)
                .path(UriPath.create(target))
                .build());
        ClientRequest<?> outgoing = client.method(request.prologue().method()).uri(uri);
        outgoing.headers(out -> {
            for (Header header : request.headers()) {
                if (!header.headerName().equals(HeaderNames.HOST)
                        && !header.headerName().equals(HeaderNames.CONTENT_LENGTH)
                        && !header.headerName().equals(HeaderNames.CONNECTION)) {
                    out.add(header);
                }
            }
        });
        if (tuned) {
            outgoing.header(HeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
        }
        try (HttpClientResponse answer = sendContext == null
                ? send(outgoing, body)
                : Contexts.runInContext(sendContext, () -> send(outgoing, body))) {
            response.status(Status.create(answer.status().code()));
            for (Header header : answer.headers()) {
                if (!header.headerName().equals(HeaderNames.CONNECTION)
                        && !header.headerName().equals(HeaderNames.TRANSFER_ENCODING)
                        && !header.headerName().equals(HeaderNames.CONTENT_LENGTH)) {
                    response.header(header);
                }
            }
            long length = answer.headers().contentLength().orElse(-1);
            if (sendBytes && length >= 0 && length <= COPY_BUFFER) {
                try (InputStream in = answer.inputStream()) {
                    response.send(in.readNBytes((int) length));
                }
                return;
            }
            answer.headers().contentLength().ifPresent(response::contentLength);
            byte[] buffer = tuned ? BUFFERS.get() : new byte[COPY_BUFFER];
            // tuned: each read asks for at most what is left of the announced length (the WebClient allocates an
            // array of the length asked for on every read).
            long left = tuned ? length : -1;
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

    private HttpClientResponse send(ClientRequest<?> outgoing, byte[] body) {
        if (!tuned) {
            return outgoing.submit(body);
        }
        return outgoing.outputStream(os -> {
            os.write(body);
            os.close();
        });
    }

    /** c-raw: the same headers out, the same relay back (through the response stream), on the lowest client layer. */
    private void relayRaw(ServerRequest request, ServerResponse response, String target, byte[] body) {
        List<String> headers = new ArrayList<>(32);
        for (Header header : request.headers()) {
            if (!header.headerName().equals(HeaderNames.HOST)
                    && !header.headerName().equals(HeaderNames.CONTENT_LENGTH)
                    && !header.headerName().equals(HeaderNames.CONNECTION)) {
                headers.add(header.name());
                headers.add(header.get());
            }
        }
        RawUpstream.Answer answer = raw.exchange(request.prologue().method().text(), target, headers, body);
        response.status(Status.create(answer.status()));
        List<String> answerHeaders = answer.headers();
        for (int i = 0; i < answerHeaders.size(); i += 2) {
            String name = answerHeaders.get(i);
            if (!name.equalsIgnoreCase("connection") && !name.equalsIgnoreCase("content-length")) {
                response.header(name, answerHeaders.get(i + 1));
            }
        }
        response.contentLength(answer.body().length);
        try (OutputStream out = response.outputStream()) {
            out.write(answer.body());
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
