package grid.gateway.app.http;

import grid.gateway.app.access.AccessLog;
import grid.gateway.app.access.AccessLogParts;
import grid.gateway.app.config.GatewaySettings;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.forward.BodyTail;
import grid.gateway.app.forward.ResponseRelay;
import grid.gateway.app.forward.UpstreamForwarder;
import grid.gateway.app.observe.CachedTokens;
import grid.gateway.app.observe.GatewayMetrics;
import grid.gateway.app.trace.Tracing;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.http.DirectHandler;
import io.helidon.webserver.http.HttpRouting;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Registers the client socket's routes: every path goes to one {@link ProxyHandler}, which applies the role's path
 * policy itself, so that a provider's refusals and a consumer's unknown paths answer in the API's error shape.
 *
 * <p>Stateless and thread-safe.
 */
public final class GatewayRouting {
    private GatewayRouting() {}

    /**
     * What the proxy is built from.
     *
     * @param router the routing decision
     * @param forwarder sends requests upstream
     * @param relay copies answers back
     * @param snapshot the config in force
     * @param metrics counts what happens
     * @param budget the process-wide budget of request body bytes in memory
     * @param endpoints the API paths served and what each one is
     * @param observing what the access log and the traces are built from
     * @param scheduler the shared scheduler, where a body read's deadline runs
     * @param sends the send timeout's watch of every client write, whose claims the relay's own cut shares
     */
    public record Parts(
            SiteRouter router,
            UpstreamForwarder forwarder,
            ResponseRelay relay,
            Supplier<GatewaySnapshot> snapshot,
            GatewayMetrics metrics,
            BodyBudget budget,
            EndpointTable endpoints,
            Observing observing,
            ScheduledExecutorService scheduler,
            SendWatch sends) {}

    /**
     * What the access log and the traces are built from.
     *
     * @param access the access log's sink, request id source and wall clock
     * @param clock times each request
     * @param tracing continues the client's trace, and exports spans when configured
     */
    public record Observing(AccessLogParts access, MonotonicClock clock, Tracing tracing) {}

    /** Adds the access log and the proxy to {@code routing}. */
    public static void register(HttpRouting.Builder routing, Parts parts) {
        Observing observing = parts.observing();
        SiteRouter router = parts.router();
        Supplier<GatewaySnapshot> snapshot = parts.snapshot();
        GatewayMetrics metrics = parts.metrics();
        UpstreamForwarder forwarder = parts.forwarder();
        ResponseRelay relay = parts.relay();
        ClientDisconnectProbe probe = new ClientDisconnectProbe();
        Forwarding forwarding = new Forwarding(
                router,
                forwarder,
                relay,
                (cluster, request) -> new IdTagging(id -> safeTag(router, id, cluster)),
                new Forwarding.Collaborators(
                        metrics,
                        GatewayRouting::usage,
                        () -> snapshot.get().config().server().sendTimeout(),
                        probe::answerStarts));
        ProxyHandler.Inbound inbound = new ProxyHandler.Inbound(
                parts.endpoints(),
                policies(snapshot),
                () -> snapshot.get().config().server().maxBodyBytes(),
                () -> snapshot.get().config().server().bodyTimeout(),
                parts.budget(),
                BodyDeadline.on(parts.scheduler()),
                observing.tracing(),
                parts.sends());
        // What the handler threw is kept for the WARNING that says the gateway failed (HandlerFailure).
        routing.error(Throwable.class, HandlerFailure::remember);
        routing.addFilter(accessLog(parts));
        routing.any(new ProxyHandler(router, forwarding, inbound, metrics, probe));
    }

    /**
     * The access log of the config in force, on {@code parts}' sink, clock and ids; it counts the requests whose client
     * left in {@code grid_client_gone_total}.
     */
    private static AccessLog accessLog(Parts parts) {
        Supplier<GatewaySnapshot> snapshot = parts.snapshot();
        Observing observing = parts.observing();
        return new AccessLog(
                () -> snapshot.get().config().gateway().accessLog(),
                observing.access(),
                observing.clock(),
                ClientAddress::of,
                parts.metrics().edge()::clientGone);
    }

    /**
     * Helidon's direct handler that answers a head or framing its parser refused, and HTTP/1.0 (505), in the API's
     * error shape ({@link ParseRefusal}).
     */
    public static DirectHandler parseRefusal(Parts parts) {
        return new ParseRefusal(
                parts.endpoints(),
                parts.metrics(),
                accessLog(parts),
                parts.observing().clock());
    }

    /**
     * The path policy of the config in force, built once per config rather than once per request: a reload swaps the
     * whole snapshot, so the policy is rebuilt when the snapshot's {@code gateway} block is another object.
     */
    private static Supplier<PathPolicy> policies(Supplier<GatewaySnapshot> snapshot) {
        AtomicReference<BuiltPolicy> built = new AtomicReference<>();
        return () -> {
            GatewaySettings gateway = snapshot.get().config().gateway();
            BuiltPolicy current = built.get();
            if (current == null || current.from() != gateway) {
                current = new BuiltPolicy(gateway, new PathPolicy(gateway.role(), gateway.allowedPaths()));
                built.set(current);
            }
            return current.policy();
        };
    }

    /** A path policy and the config block it was built from. */
    private record BuiltPolicy(GatewaySettings from, PathPolicy policy) {}

    /**
     * Tags an engine id with {@code cluster}; an id the tag format cannot carry gets that cluster's tag head anyway and
     * then names no cluster ({@link SiteRouter#tag}). A text without a {@code resp_} or {@code conv_} prefix, which no
     * tagger hands here, is left as it is.
     */
    private static String safeTag(SiteRouter router, String engineId, BackendCluster cluster) {
        try {
            return router.tag(engineId, cluster);
        } catch (IllegalArgumentException untaggable) {
            return engineId;
        }
    }

    /**
     * The usage of an answer's tail: a JSON body's (of a body longer than its tail, the top-level members the tail
     * holds whole), or else its events'.
     */
    private static CachedTokens.UsageReading usage(BodyTail tail) {
        byte[] bytes = tail.bytes();
        CachedTokens.UsageReading json =
                tail.cut() ? CachedTokens.usageInJsonTail(bytes) : CachedTokens.usageInJson(bytes);
        return json.usage() ? json : CachedTokens.usageInEventStream(bytes);
    }
}
