package grid.gateway.conformance.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code server.shutdown_delay_ms}, the gateway's side of the chart's preStop delay: on SIGTERM (which runs
 * {@code GatewayServer.shutdown()}) readiness fails at once, but the client listener keeps accepting and answering
 * for the delay, because Services and ingresses keep sending new connections until they have seen the pod go. No
 * request that arrives during the delay is lost; only after it does the listener close and the drain begin.
 *
 * <p>The delay here is ten minutes and is ended by the test ({@code endShutdownDelay()}) once the traffic has
 * stopped, so no request races the end of the delay and nothing depends on the machine's speed.
 */
class ShutdownDelayTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String CHAT = LifecycleGrid.chat("Keep serving. ", 2, "");
    private static final int SENDERS = 3;
    /** Requests that must be answered after readiness turned 503, before the delay is ended. */
    private static final int DURING_DELAY = 60;

    @TempDir
    Path dir;

    private LifecycleGrid grid;

    @BeforeEach
    void start() {
        grid = new LifecycleGrid(dir);
        grid.engine("east-a");
    }

    @AfterEach
    void stop() {
        if (grid.gateway != null) {
            grid.gateway.server.endShutdownDelay();
        }
        grid.close();
    }

    private GatewayServer gateway(long delayMillis) {
        return grid.startOverEastA("  shutdown_grace_ms: 20000\n  shutdown_delay_ms: " + delayMillis + "\n");
    }

    @Test
    void sigtermDuringSteadyTraffic_losesNoRequestThatArrivesDuringTheDelay() throws Exception {
        GatewayServer gateway = gateway(600_000);
        int port = gateway.port();
        AtomicBoolean sending = new AtomicBoolean(true);
        AtomicInteger answered = new AtomicInteger();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        List<Thread> senders = new ArrayList<>();
        for (int i = 0; i < SENDERS; i++) {
            senders.add(Thread.ofPlatform().name("sender-" + i).start(() -> {
                while (sending.get()) {
                    send(answered, failures);
                }
            }));
        }
        GatewayHarness.await("steady traffic", DEADLINE, () -> answered.get() >= 30);

        CompletableFuture<GatewayServer.ShutdownReport> sigterm = CompletableFuture.supplyAsync(
                gateway::shutdown, runnable -> Thread.ofPlatform().start(runnable));
        GatewayHarness.await(
                "readiness to turn false",
                DEADLINE,
                () -> grid.gateway.ready().equals("503 not ready: shutting down\n"));
        int atNotReady = answered.get();

        // The listener still takes new connections and answers on them, telling the client not to reuse them.
        String fresh = onNewConnection(port);
        assertThat(fresh).startsWith("HTTP/1.1 200").containsIgnoringCase("\nconnection: close");
        GatewayHarness.await(
                DURING_DELAY + " requests answered while not ready",
                DEADLINE,
                () -> answered.get() >= atNotReady + DURING_DELAY);
        assertThat(grid.gateway.ready()).isEqualTo("503 not ready: shutting down\n");
        assertThat(sigterm).as("still in the delay").isNotDone();

        sending.set(false);
        for (Thread sender : senders) {
            sender.join(DEADLINE.toMillis());
        }
        gateway.endShutdownDelay();
        GatewayServer.ShutdownReport report = sigterm.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        assertThat(failures).isEmpty();
        assertThat(answered.get()).isGreaterThanOrEqualTo(atNotReady + DURING_DELAY);
        assertThat(report.cut()).isZero();
        assertThat(GatewayHarness.refuses(port))
                .as("listener closed after the delay")
                .isTrue();
    }

    @Test
    void delay_endsByItselfThenTheListenerCloses() {
        GatewayServer gateway = gateway(300);
        int port = gateway.port();

        long start = System.nanoTime();
        GatewayServer.ShutdownReport report = gateway.shutdown();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(report.cut()).isZero();
        assertThat(GatewayHarness.refuses(port)).isTrue();
    }

    @Test
    void close_doesNotWaitForTheDelay() {
        GatewayServer gateway = gateway(600_000);
        int port = gateway.port();

        long start = System.nanoTime();
        gateway.close();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
        assertThat(GatewayHarness.refuses(port)).isTrue();
    }

    private void send(AtomicInteger answered, Queue<String> failures) {
        try {
            HttpResponse<String> answer = grid.gateway.client.send(
                    HttpRequest.newBuilder(grid.gateway.uri("/v1/chat/completions"))
                            .timeout(DEADLINE)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 200) {
                answered.incrementAndGet();
            } else {
                failures.add(answer.statusCode() + " " + answer.body());
            }
        } catch (IOException e) {
            failures.add(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(e.toString());
        }
    }

    /** One request on a connection of its own; returns the answer's head. */
    private static String onNewConnection(int port) throws IOException {
        byte[] body = CHAT.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout((int) DEADLINE.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            int b;
            while (head.indexOf("\r\n\r\n") < 0 && (b = in.read()) >= 0) {
                head.append((char) b);
            }
            return head.toString().strip().replace("\r\n", "\n");
        }
    }
}
