package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client listener survives running out of file descriptors, on real sockets: a child JVM whose open-file limit
 * is low is flooded with connections until its accepts fail; it pauses accepting (the port keeps taking connections
 * into its backlog), and once the flood's connections close it serves again. A listener whose socket closed anyway
 * fails {@code /health/live}; {@code max_connections: auto} takes its cap from the open-file limit.
 */
class ListenerExhaustionTest {
    /** Enough for the JVM and its libraries (about 150 with the test class path), far fewer than the flood. */
    private static final int OPEN_FILES = 320;
    /** More connections than {@link #OPEN_FILES}, fewer than the listen backlog (1024). */
    private static final int FLOOD = 700;

    private static final String PAUSED = "client listener: accept failed";
    private static final String RESUMED = "client listener: accepting again";

    @TempDir
    Path dir;

    private Path config(String serverExtra) throws IOException {
        return Files.writeString(dir.resolve("gateway.yaml"), ChildGateway.config(serverExtra));
    }

    @Test
    void outOfFileDescriptors_acceptingPauses_andResumesOnceConnectionsClose() throws IOException {
        try (ChildGateway child = new ChildGateway(config("  max_connections: 0"), OPEN_FILES)) {
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < FLOOD && !child.wrote(PAUSED); i++) {
                    flood.add(connect(child.port()));
                }
                GatewayHarness.await(
                        "the child's accepts failed and paused:\n" + child.output(), () -> child.wrote(PAUSED));
                // Paused, not closed: the port still takes connections (into its backlog).
                connect(child.port()).close();
            } finally {
                for (Socket socket : flood) {
                    socket.close();
                }
            }
            // Waits in the backlog until the paused accept resumes.
            HttpResponse<String> models = get(child.port(), "/v1/models");
            assertThat(models.statusCode())
                    .as("%s%n%s", models.body(), child.output())
                    .isEqualTo(200);
            GatewayHarness.await("the child said it resumed", () -> child.wrote(RESUMED));
            assertThat(get(child.adminPort(), "/health/live").statusCode()).isEqualTo(200);
            HttpResponse<String> metrics = get(child.adminPort(), "/metrics");
            assertThat(GatewayHarness.metric(
                            metrics.body(), "grid_listener_accept_pauses_total", "listener=\"client\""))
                    .as(
                            "/metrics (%d):%n%s%nthe child wrote:%n%s",
                            metrics.statusCode(), metrics.body(), child.output())
                    .isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void maxConnectionsAuto_capsClientConnections_fromTheOpenFileLimit() throws IOException {
        try (ChildGateway child = new ChildGateway(config(""), 1024)) {
            String metrics = get(child.adminPort(), "/metrics").body();
            // (1024 − 512) / 2
            assertThat(metrics).contains("grid_client_connections_limit{scope=\"application\",} 256.0");
            assertThat(GatewayHarness.metric(metrics, "grid_open_files_limit", "scope"))
                    .isEqualTo(1024);
        }
    }

    @Test
    void clientListenerSocketClosed_liveAndReadyFail() throws Exception {
        try (GatewayHarness gateway =
                new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine("http://127.0.0.1:9")))) {
            assertThat(live(gateway)).isEqualTo("200 live\n");
            // What Helidon's accept loop does when it gives up: it closes the listening socket.
            helidonListenerChannel(gateway.server).close();

            GatewayHarness.await(
                    "the gateway reports itself not live", () -> live(gateway).startsWith("503"));
            assertThat(live(gateway)).isEqualTo("503 not live: client listener stopped accepting connections\n");
            assertThat(gateway.ready()).startsWith("503");
            assertThat(GatewayHarness.refuses(gateway.server.port())).isTrue();
        }
    }

    /** The bound channel of the gateway's client listener, through Helidon 4.5's private fields. */
    private static ServerSocketChannel helidonListenerChannel(GatewayServer gateway) throws Exception {
        Object server = field(GatewayServer.class, "server").get(gateway);
        Class<?> loom = Class.forName("io.helidon.webserver.LoomServer");
        Map<?, ?> listeners = (Map<?, ?>) field(loom, "listeners").get(server);
        Object listener = listeners.get("@default");
        Class<?> serverListener = Class.forName("io.helidon.webserver.ServerListener");
        return (ServerSocketChannel) field(serverListener, "serverSocket").getVolatile(listener);
    }

    private static VarHandle field(Class<?> owner, String name) throws ReflectiveOperationException {
        Class<?> type = owner.getDeclaredField(name).getType();
        return MethodHandles.privateLookupIn(owner, MethodHandles.lookup()).findVarHandle(owner, name, type);
    }

    private static String live(GatewayHarness gateway) {
        HttpResponse<String> answer = get(gateway.server.adminPort(), "/health/live");
        return answer.statusCode() + " " + answer.body();
    }

    private static Socket connect(int port) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            return socket;
        } catch (IOException e) {
            throw new UncheckedIOException("connecting to " + port, e);
        }
    }

    private static HttpResponse<String> get(int port, String path) {
        return GatewayHarness.send(
                GatewayHarness.client(Optional.empty()),
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build());
    }
}
