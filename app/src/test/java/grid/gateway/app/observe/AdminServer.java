package grid.gateway.app.observe;

import io.helidon.http.HeaderNames;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.webclient.http1.Http1Client;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;

/**
 * Test fixture: a web server on 127.0.0.1 with a client socket and an {@value AdminRoutes#SOCKET} socket, both on
 * port 0, wired by {@link AdminRoutes#addTo} exactly as the gateway wires it.
 */
final class AdminServer implements AutoCloseable {
    private final WebServer server;
    private final Http1Client admin;
    private final Http1Client client;

    private AdminServer(WebServer server) {
        this.server = server;
        this.admin = Http1Client.builder()
                .baseUri("http://127.0.0.1:" + server.port(AdminRoutes.SOCKET))
                .build();
        this.client = Http1Client.builder()
                .baseUri("http://127.0.0.1:" + server.port())
                .build();
    }

    static AdminServer start(MeterRegistry registry, Readiness readiness) {
        WebServerConfig.Builder builder = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .putSocket(
                        AdminRoutes.SOCKET, socket -> socket.host("127.0.0.1").port(0));
        AdminRoutes.addTo(builder, registry, readiness);
        return new AdminServer(builder.build().start());
    }

    /** GET {@code path} on the admin socket. */
    Http1ClientResponse admin(String path) {
        return admin.get(path).request();
    }

    /** GET {@code path} on the admin socket, with {@code Accept: accept}. */
    Http1ClientResponse admin(String path, String accept) {
        return admin.get(path).header(HeaderNames.ACCEPT, accept).request();
    }

    /** GET {@code path} on the client socket. */
    Http1ClientResponse client(String path) {
        return client.get(path).request();
    }

    /** The admin socket's {@code /metrics}, parsed. */
    Scrape scrape() {
        return scrape("text/plain");
    }

    /** The admin socket's {@code /metrics} asked for with {@code Accept: accept}, parsed. */
    Scrape scrape(String accept) {
        try (Http1ClientResponse response =
                admin.get("/metrics").header(HeaderNames.ACCEPT, accept).request()) {
            if (response.status().code() != 200) {
                throw new AssertionError("/metrics answered " + response.status());
            }
            return Scrape.parse(response.as(String.class));
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
