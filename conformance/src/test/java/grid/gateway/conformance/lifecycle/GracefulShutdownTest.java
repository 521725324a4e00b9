package grid.gateway.conformance.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import grid.gateway.conformance.soak.TcpConnections;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.Fault;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability H.91–92: a gateway that stops (SIGTERM runs {@code GatewayServer.shutdown()}) turns not ready,
 * refuses new connections, lets streams in flight finish within {@code server.shutdown_grace_ms}, cuts what is
 * left at that deadline (the client's stream ends abnormally), and closes its upstream connections.
 */
class GracefulShutdownTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final String STREAM = LifecycleGrid.chat("Drain me gently. ", 8, "\"stream\":true,");

    @TempDir
    Path dir;

    private LifecycleGrid grid;
    private EngineSimulator engine;
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() {
        grid = new LifecycleGrid(dir);
        engine = grid.engine("east-a");
    }

    @AfterEach
    void stop() {
        release.countDown();
        grid.close();
    }

    private GatewayServer gateway(long graceMillis) {
        return grid.startOverEastA("  shutdown_grace_ms: " + graceMillis + "\n");
    }

    @Test
    void streamsInFlight_finishWithinTheGrace_whileReadinessIsFalseAndNewConnectionsAreRefused() throws Exception {
        GatewayServer gateway = gateway(20_000);
        engine.failNext(2, Fault.holdBeforeEvent(2, release));
        CompletableFuture<HttpResponse<String>> first = streamAsync();
        CompletableFuture<HttpResponse<String>> second = streamAsync();
        GatewayHarness.await("two streams in flight", () -> gateway.requestsInFlight() == 2);
        int adminPort = gateway.adminPort();
        int port = gateway.port();

        CompletableFuture<GatewayServer.ShutdownReport> shutdown = CompletableFuture.supplyAsync(
                gateway::shutdown, runnable -> Thread.ofPlatform().start(runnable));

        GatewayHarness.await(
                "readiness to turn false", () -> grid.gateway.ready().equals("503 not ready: shutting down\n"));
        GatewayHarness.await("the client port to refuse connections", () -> GatewayHarness.refuses(port));
        assertThat(shutdown).isNotDone();
        long released = System.nanoTime();
        release.countDown();
        assertThat(first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).body()).endsWith("data: [DONE]\n\n");
        assertThat(second.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).body()).endsWith("data: [DONE]\n\n");
        GatewayServer.ShutdownReport report = shutdown.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        // Done when the streams were, not at the 20 s deadline.
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(10));
        assertThat(report).isEqualTo(new GatewayServer.ShutdownReport(2, 2, 0));
        assertUpstreamClosed();
        assertThat(GatewayHarness.refuses(adminPort))
                .as("admin listener stopped last")
                .isTrue();
    }

    @Test
    void streamStillRunningAtTheGraceDeadline_isCutAbnormallyAndItsUpstreamConnectionClosed() throws Exception {
        GatewayServer gateway = gateway(1_000);
        engine.failNext(1, Fault.holdBeforeEvent(2, release));
        CompletableFuture<HttpResponse<String>> held = streamAsync();
        GatewayHarness.await("the stream in flight", () -> gateway.requestsInFlight() == 1);

        long start = System.nanoTime();
        GatewayServer.ShutdownReport report = gateway.shutdown();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).isBetween(Duration.ofMillis(900), Duration.ofSeconds(10));
        assertThat(report).isEqualTo(new GatewayServer.ShutdownReport(1, 0, 1));
        // The client saw the stream break: an I/O error, never a clean end with [DONE].
        assertThatThrownBy(() -> held.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(IOException.class);
        assertUpstreamClosed();
    }

    @Test
    void idleKeptAliveConnections_doNotHoldTheStop() throws Exception {
        GatewayServer gateway = gateway(30_000);
        // The JDK client keeps this connection open after the answer.
        assertThat(grid.gateway
                        .post("/v1/chat/completions", LifecycleGrid.chat("Hello. ", 1, ""))
                        .statusCode())
                .isEqualTo(200);

        long start = System.nanoTime();
        GatewayServer.ShutdownReport report = gateway.shutdown();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        // (The answer reached the client a moment before its handler returned, so it may count as finished.)
        assertThat(report.cut()).isZero();
        assertUpstreamClosed();
    }

    @Test
    void idleConnectionOpenAtShutdown_isClosedAtOnceWhileStreamsDrain() throws Exception {
        GatewayServer gateway = gateway(20_000);
        engine.failNext(1, Fault.holdBeforeEvent(2, release));
        try (Socket idle = new Socket()) {
            idle.connect(new InetSocketAddress("127.0.0.1", gateway.port()), 5_000);
            idle.setSoTimeout((int) DEADLINE.toMillis());
            CompletableFuture<HttpResponse<String>> held = streamAsync();
            GatewayHarness.await("the held stream in flight", () -> gateway.requestsInFlight() == 1);

            CompletableFuture<GatewayServer.ShutdownReport> shutdown = CompletableFuture.supplyAsync(
                    gateway::shutdown, runnable -> Thread.ofPlatform().start(runnable));

            // Helidon closes connections idle between requests when its listener stops: the client reconnects
            // elsewhere instead of sending a request into a closing gateway.
            assertThat(idle.getInputStream().read()).isEqualTo(-1);
            assertThat(shutdown).isNotDone();
            release.countDown();
            assertThat(held.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).body()).endsWith("data: [DONE]\n\n");
            assertThat(shutdown.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo(new GatewayServer.ShutdownReport(1, 1, 0));
        }
    }

    private void assertUpstreamClosed() {
        if (TcpConnections.available()) {
            GatewayHarness.await(
                    "no connection to the engine (client sides of /proc/net/tcp*:\n" + upstreamLines() + ")",
                    () -> TcpConnections.establishedTo(Set.of(engine.port())) == 0);
        }
    }

    private String upstreamLines() {
        String port = String.format(":%04X ", engine.port());
        StringBuilder lines = new StringBuilder();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : java.nio.file.Files.readAllLines(Path.of(table))) {
                    if (line.contains(port)) {
                        lines.append(line).append('\n');
                    }
                }
            } catch (IOException absent) {
                // no such table here
            }
        }
        return lines.toString();
    }

    private CompletableFuture<HttpResponse<String>> streamAsync() {
        return grid.gateway.client.sendAsync(
                HttpRequest.newBuilder(grid.gateway.uri("/v1/chat/completions"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(STREAM))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
