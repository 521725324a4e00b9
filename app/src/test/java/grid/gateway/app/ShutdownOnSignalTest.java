package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SIGTERM hook is registered before the gateway starts ({@link Main}): a signal during the start waits for it and
 * then stops the gateway it gave, gracefully, as a later signal does; a start that failed stops nothing; a start that
 * never ends is not waited for without end.
 */
class ShutdownOnSignalTest {
    @TempDir
    Path dir;

    private final List<GatewayServer> stopped = new ArrayList<>();

    @Test
    void signalDuringTheStart_waitsForIt_thenStopsTheGatewayItGave() throws Exception {
        ShutdownOnSignal hook = new ShutdownOnSignal(this::stop, GatewayHarness.DEADLINE);
        Thread signal = Thread.ofPlatform().start(hook);
        GatewayHarness.await("the hook waits for the start", () -> signal.getState() == Thread.State.TIMED_WAITING);

        try (GatewayHarness gateway =
                new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneSite("http://127.0.0.1:9")))) {
            assertThat(gateway.get("/v1/models").statusCode()).isEqualTo(200);
            int port = gateway.server.port();
            hook.started(gateway.server);
            signal.join(GatewayHarness.DEADLINE.toMillis());

            assertThat(signal.isAlive()).isFalse();
            assertThat(stopped).containsExactly(gateway.server);
            assertThat(GatewayHarness.refuses(port)).isTrue();
        }
    }

    @Test
    void startFailed_signalStopsNothing() {
        ShutdownOnSignal hook = new ShutdownOnSignal(this::stop, GatewayHarness.DEADLINE);
        hook.notStarted();

        CompletableFuture.runAsync(hook).orTimeout(5, TimeUnit.SECONDS).join();

        assertThat(stopped).isEmpty();
    }

    @Test
    void startThatNeverEnds_notWaitedForPastTheBound() {
        ShutdownOnSignal hook = new ShutdownOnSignal(this::stop, Duration.ofMillis(10));

        CompletableFuture.runAsync(hook).orTimeout(5, TimeUnit.SECONDS).join();

        assertThat(stopped).isEmpty();
    }

    private void stop(GatewayServer server) {
        stopped.add(server);
        server.shutdown(Duration.ZERO);
    }
}
