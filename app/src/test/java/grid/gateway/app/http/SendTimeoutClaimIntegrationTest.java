package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.forward.SendTimeoutClaim;
import grid.gateway.app.listen.ListenerEvents;
import grid.gateway.app.listen.ListenerGuard;
import grid.gateway.routing.time.ManualClock;
import io.helidon.webserver.WebServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request finds the send timeout's claim of the connection it came on, on a real listener guarded as the gateway's
 * are: the relay's own cut and the listener's send watch share it, so a client both cut at the same moment is counted
 * once ({@code SendWatchTest} plays that moment). Every request on one connection finds the same claim; another
 * connection has its own.
 */
class SendTimeoutClaimIntegrationTest {
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    /** Never swept here: the watch only lends its claims. */
    private final SendWatch watch =
            new SendWatch(scheduler, new ManualClock(), () -> Duration.ofSeconds(60), ListenerEvents.NONE);

    private final List<SendTimeoutClaim> claims = new CopyOnWriteArrayList<>();
    private final WebServer server = WebServer.builder()
            .host("127.0.0.1")
            .port(0)
            .featuresDiscoverServices(false)
            .shutdownHook(false)
            .routing(r -> r.any((request, response) -> {
                claims.add(watch.claimOf(request));
                response.send("ok");
            }))
            .build()
            .start();

    @AfterEach
    void stop() {
        server.stop();
        scheduler.shutdownNow();
    }

    @Test
    void requestsOnOneConnection_shareItsClaim_anotherConnectionHasItsOwn() throws Exception {
        ListenerGuard.guard(server, "127.0.0.1", "client", ListenerEvents.NONE, watch.listener("client"));
        try (RawClient first = new RawClient(server.port());
                RawClient second = new RawClient(server.port())) {
            for (RawClient client : List.of(first, first, second)) {
                client.send("GET /v1/models HTTP/1.1\r\nHost: gw\r\n\r\n");
                assertThat(client.read().status()).isEqualTo(200);
            }
        }

        assertThat(claims).hasSize(3);
        assertThat(claims.get(0).claim())
                .as("the relay's cut of the first request claims its connection")
                .isTrue();
        assertThat(claims.get(1).claim())
                .as("a later cut of the same connection (the watch's, or another request's) counts nothing")
                .isFalse();
        assertThat(claims.get(2).claim()).as("another connection's claim").isTrue();
    }
}
