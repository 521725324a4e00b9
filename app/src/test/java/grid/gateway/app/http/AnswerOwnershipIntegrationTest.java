package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.access.AccessRecord;
import grid.gateway.app.config.UpstreamSettings;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.forward.AnswerRewrite;
import grid.gateway.app.forward.ClientProgress;
import grid.gateway.app.forward.ForwardRequest;
import grid.gateway.app.forward.LeftoverFound;
import grid.gateway.app.forward.ResponseRelay;
import grid.gateway.app.forward.RetryReason;
import grid.gateway.app.forward.SendTimeoutClaim;
import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.app.forward.UpstreamForwarder;
import grid.gateway.app.observe.CachedTokens;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.observe.ProxyEvents;
import grid.gateway.app.trace.RequestTrace;
import grid.gateway.routing.RoutingListener;
import grid.gateway.routing.RoutingParts;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.SystemMonotonicClock;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every upstream answer is ended exactly once, on every path (docs/failure-behaviour.md, "Upstream connections"): a
 * step that throws between the answer's head and its relay (here an injected fault of the id rewrite, built once the
 * head is in) closes the answer's connection at once, which tells the engine to stop, rather than leaving it neither
 * pooled nor closed; the next client gets its own answer. Real sockets on both sides: a Helidon server in front of
 * {@link Forwarding}, a scripted engine behind it.
 */
class AnswerOwnershipIntegrationTest {
    private static final SiteName EAST = new SiteName("east");
    /** The slice a body writer copies the body into ({@code BodyWriter.SLICE}), counted as it starts. */
    private static final long SLICE = 64 * 1024;

    private static final String ANSWER =
            "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":[]}";

    private final ScriptedUpstream engine = new ScriptedUpstream();
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    private final UpstreamForwarder forwarder = new UpstreamForwarder(
            new UpstreamSettings(
                    Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ofMinutes(5), 8, Optional.empty()),
            SystemMonotonicClock.INSTANCE,
            cluster -> Optional.empty(),
            watchdog,
            (cluster, found) -> {});
    private final BackendCluster cluster = new BackendCluster(
            new ClusterId(EAST, "a"),
            URI.create(engine.url()),
            Set.of("demo-model"),
            Optional.empty(),
            OptionalInt.empty(),
            false);
    private final AtomicBoolean faultArmed = new AtomicBoolean(true);
    /** Whether counting a body writer's slice throws an {@code Error} (as its allocation may, out of memory), once. */
    private final AtomicBoolean sliceFault = new AtomicBoolean();
    /** The body every request forwards. */
    private volatile byte[] body = new byte[0];

    private final BodyBudget budget = new BodyBudget(() -> Long.MAX_VALUE);
    private final WebServer server = WebServer.builder()
            .host("127.0.0.1")
            .port(0)
            .featuresDiscoverServices(false)
            .shutdownHook(false)
            .routing(r -> r.any(this::handle))
            .build()
            .start();

    @AfterEach
    void stop() {
        server.stop();
        forwarder.close();
        watchdog.shutdownNow();
        engine.close();
    }

    @Test
    void rewriteThrowsOnceTheAnswerHeadIsIn_upstreamConnectionClosedAtOnce_nextClientGetsItsOwnAnswer()
            throws Exception {
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + ANSWER.length() + "\r\n\r\n" + ANSWER);
        try (RawClient client = new RawClient(server.port())) {
            client.send("GET /v1/responses/resp_1 HTTP/1.1\r\nHost: gw\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(500); // the injected fault, Helidon's own answer
        }
        // Without an owner the connection stays open, unpooled, for as long as the engine keeps it.
        GatewayHarness.await(
                "the engine saw its connection closed", Duration.ofSeconds(10), () -> engine.open.get() == 0);

        try (RawClient client = new RawClient(server.port())) {
            client.send("GET /v1/responses/resp_1 HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo(ANSWER);
        }
        assertThat(engine.connections()).isEqualTo(2);
        GatewayHarness.await("every request's memory given back", () -> budget.inUse() == 0);
    }

    @Test
    void errorAsTheBodysWriterStarts_upstreamConnectionClosedAtOnce_nextClientGetsItsOwnAnswer() throws Exception {
        faultArmed.set(false);
        engine.readsBody = false;
        engine.receiveBuffer(64 * 1024);
        body = new byte[16 << 20]; // more than the kernel takes at once: the rest goes to a writer of its own
        sliceFault.set(true);
        engine.script = e -> e.awaitPeerClose(30_000);
        try (RawClient client = new RawClient(server.port())) {
            client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Length: 0\r\n\r\n");
            client.read(); // whatever Helidon makes of the error
        } catch (IOException closed) {
            // Or the client's connection closed by it: either way the request is over.
        }
        // The harness's deadline (20 s) stays under the 30 s after which the engine would close by itself.
        GatewayHarness.await("the engine saw its connection closed", () -> engine.open.get() == 0);

        body = new byte[0];
        engine.readsBody = true;
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + ANSWER.length() + "\r\n\r\n" + ANSWER);
        try (RawClient client = new RawClient(server.port())) {
            client.send("GET /v1/responses/resp_1 HTTP/1.1\r\nHost: gw\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
        }
        GatewayHarness.await("every request's memory given back", () -> budget.inUse() == 0);
    }

    /** What an allocation that runs out of memory throws, as a test can throw it. */
    private static final class InjectedError extends Error {
        private static final long serialVersionUID = 1L;

        InjectedError() {
            super("injected: the body writer's slice could not be had");
        }
    }

    /** As the proxy handler does for a request pinned to {@link #cluster}, the answer's memory held in the budget. */
    private void handle(ServerRequest request, ServerResponse response) {
        try (BodyBudget.Hold hold = budget.hold()) {
            ForwardRequest.Client client = new ForwardRequest.Client(
                    request.headers(),
                    "127.0.0.1",
                    AccessRecord.of(request),
                    RequestTrace.NONE,
                    bytes -> {
                        if (bytes == SLICE && sliceFault.getAndSet(false)) {
                            throw new InjectedError();
                        }
                        hold.holdAnswer(bytes);
                    },
                    ClientProgress.NONE,
                    SendTimeoutClaim.once(),
                    hold::bodyDone);
            String path = request.path().rawPath();
            ForwardRequest forward = new ForwardRequest(
                    request.prologue().method(),
                    EndpointTable.standard().classify(path).endpoint(),
                    path,
                    client,
                    body);
            forwarding().pinned(cluster, forward, response);
        }
    }

    private Forwarding forwarding() {
        SiteRouter router = new SiteRouter(
                Grid.of(EAST, List.of(cluster)), PrefixAffinitySettings.defaults(), TagKeyRing.none(), routing());
        return new Forwarding(
                router,
                forwarder,
                new ResponseRelay(),
                (c, r) -> {
                    if (faultArmed.getAndSet(false)) {
                        throw new IllegalStateException("an injected fault after the answer's head");
                    }
                    return AnswerRewrite.NONE;
                },
                new Forwarding.Collaborators(
                        new NoEvents(),
                        tail -> CachedTokens.UsageReading.NONE,
                        () -> Duration.ofSeconds(30),
                        () -> {}));
    }

    private static RoutingParts routing() {
        ManualClock clock = new ManualClock();
        return new RoutingParts(
                new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1),
                new QueueDepthWindow(Duration.ofSeconds(10)),
                new OutlierEjector(),
                new SplittableRandom(1),
                clock,
                RoutingListener.NONE);
    }

    /** Counts nothing. */
    private static final class NoEvents implements ProxyEvents {
        @Override
        public void noKeys(NoKeysReason reason) {}

        @Override
        public void refused(InboundRefusal reason) {}

        @Override
        public void upstreamAnswered(ClusterId cluster, int status, Duration toHeaders) {}

        @Override
        public void upstreamFailed(ClusterId cluster, UpstreamFailure failure) {}

        @Override
        public void sendTimedOut() {}

        @Override
        public void upstreamRetried(ClusterId cluster, RetryReason reason) {}

        @Override
        public void upstreamLeftover(ClusterId cluster, LeftoverFound found) {}

        @Override
        public void cachedTokens(
                ClusterId cluster, Optional<AffinityOutcome> outcome, long predicted, OptionalLong reported) {}
    }
}
