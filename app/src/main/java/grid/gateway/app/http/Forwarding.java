package grid.gateway.app.http;

import grid.gateway.app.forward.AnswerRewrite;
import grid.gateway.app.forward.Attempt;
import grid.gateway.app.forward.ForwardRequest;
import grid.gateway.app.forward.RelayResult;
import grid.gateway.app.forward.ResponseRelay;
import grid.gateway.app.forward.UpstreamForwarder;
import grid.gateway.routing.Route;
import grid.gateway.routing.RouteDecision;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.select.LoadGate;
import io.helidon.webserver.http.ServerResponse;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Sends a routed request upstream and relays the answer (SPEC §3, §6, §9):
 *
 * <pre>
 *   send ── connect failure ──> unpinned: next candidate (two tries in all), then 502
 *     │                          pinned:   503 + Retry-After: 5
 *     ├── first-byte timeout ──> 504        broken before headers ──> 502
 *     └── answered ──> learn (2xx confirm, 429/5xx drop) ──> relay ──> cached tokens (counted; learn_from_usage)
 * </pre>
 *
 * <p>Thread-safe: stateless apart from its thread-safe collaborators.
 */
final class Forwarding {
    private static final int MAX_TRIES = 2;

    private final SiteRouter router;
    private final UpstreamForwarder forwarder;
    private final ResponseRelay relay;
    private final BiFunction<BackendCluster, ForwardRequest, AnswerRewrite> rewrites;
    private final Collaborators extras;

    /** The metric events and the usage parser. */
    record Collaborators(ProxyEvents events, Function<byte[], OptionalLong> reportedCachedTokens) {}

    Forwarding(
            SiteRouter router,
            UpstreamForwarder forwarder,
            ResponseRelay relay,
            BiFunction<BackendCluster, ForwardRequest, AnswerRewrite> rewrites,
            Collaborators extras) {
        this.router = router;
        this.forwarder = forwarder;
        this.relay = relay;
        this.rewrites = rewrites;
        this.extras = extras;
    }

    /** Forwards an unpinned request along {@code route}, retrying another candidate after a connect failure. */
    void routed(Route route, PromptKeys keys, ForwardRequest request, ServerResponse response) {
        Set<ClusterId> tried = new HashSet<>();
        Route next = route;
        while (true) {
            switch (next) {
                case Route.UnknownModel unknown -> {
                    ErrorAnswers.send(response, request.path(), ApiError.MODEL_NOT_FOUND);
                    return;
                }
                case Route.NoneAdmitted none -> {
                    ApiError error = tried.isEmpty() ? ApiError.NONE_ADMITTED : ApiError.UPSTREAM_UNREACHABLE;
                    ErrorAnswers.send(response, request.path(), error);
                    return;
                }
                case Route.Forward forward -> {
                    if (attempt(forward.decision(), request, response)) {
                        return;
                    }
                    tried.add(forward.decision().cluster().id());
                    if (tried.size() == MAX_TRIES) {
                        ErrorAnswers.send(response, request.path(), ApiError.UPSTREAM_UNREACHABLE);
                        return;
                    }
                    next = router.route(keys, tried);
                }
            }
        }
    }

    /** Forwards a pinned request to its cluster only. */
    void pinned(BackendCluster cluster, ForwardRequest request, ServerResponse response) {
        if (!attempt(RouteDecision.unkeyed(cluster), request, response)) {
            ErrorAnswers.send(response, request.path(), ApiError.PINNED_UNAVAILABLE);
        }
    }

    /**
     * What a 2xx answer's usage reported: counted against the prediction, and, for a request routed on its keys, taught
     * to the router ({@code learn_from_usage}; the router ignores it when that is off).
     */
    private void usage(RouteDecision decision, OptionalLong reported) {
        extras.events()
                .cachedTokens(
                        decision.cluster().id(),
                        decision.outcome(),
                        (long) decision.run() * LoadGate.TOKENS_PER_BLOCK,
                        reported);
        if (reported.isPresent() && !decision.keys().isEmpty()) {
            router.usageReported(decision, reported.getAsLong());
        }
    }

    /** One try; false only when the connection could not be made (nothing was sent). */
    private boolean attempt(RouteDecision routed, ForwardRequest request, ServerResponse response) {
        BackendCluster cluster = routed.cluster();
        // A call that does no prefill is routed like any other, but its answer confirms and drops nothing.
        RouteDecision decision = request.prefills()
                ? routed
                : new RouteDecision(cluster, routed.outcome(), routed.run(), BlockKeys.none());
        Attempt attempt = forwarder.send(cluster, request);
        if (!(attempt instanceof Attempt.Answered) && Thread.currentThread().isInterrupted()) {
            // The client went away (ClientDisconnectProbe interrupted the wait): nobody to answer, nothing to
            // retry, and the cluster is not to blame.
            return true;
        }
        switch (attempt) {
            case Attempt.ConnectFailed failed -> {
                extras.events().upstreamFailed(cluster.id(), "connect");
                router.connectFailed(cluster.id());
                return false;
            }
            case Attempt.TimedOut timedOut -> {
                extras.events().upstreamFailed(cluster.id(), "timeout");
                router.answered(decision, ApiError.UPSTREAM_TIMEOUT.status());
                ErrorAnswers.send(response, request.path(), ApiError.UPSTREAM_TIMEOUT);
            }
            case Attempt.Broken broken -> {
                extras.events().upstreamFailed(cluster.id(), "broken");
                router.answered(decision, ApiError.UPSTREAM_UNREACHABLE.status());
                ErrorAnswers.send(response, request.path(), ApiError.UPSTREAM_UNREACHABLE);
            }
            case Attempt.Answered answered -> {
                int status = answered.response().status().code();
                extras.events().upstreamAnswered(cluster.id(), status, answered.toHeaders());
                // The cluster answered: 2xx confirms the request's blocks there, 429/5xx drops them.
                router.answered(decision, status);
                AnswerRewrite rewrite = request.tagsIds() ? rewrites.apply(cluster, request) : AnswerRewrite.NONE;
                RelayResult result = relay.relay(request.method(), answered.response(), response, rewrite);
                if (result.delivery() != RelayResult.Delivery.DELIVERED) {
                    boolean timedOut = result.delivery() == RelayResult.Delivery.TIMED_OUT_BEFORE_BODY;
                    extras.events().upstreamFailed(cluster.id(), timedOut ? "timeout" : "broken");
                    // The client gets the gateway's 504/502, not the 2xx: keys a 2xx confirmed are dropped again.
                    router.answered(
                            decision,
                            timedOut ? ApiError.UPSTREAM_TIMEOUT.status() : ApiError.UPSTREAM_UNREACHABLE.status());
                    ErrorAnswers.send(
                            response,
                            request.path(),
                            timedOut ? ApiError.UPSTREAM_TIMEOUT : ApiError.UPSTREAM_UNREACHABLE);
                } else if (status >= 200 && status < 300 && request.prefills()) {
                    usage(
                            decision,
                            extras.reportedCachedTokens().apply(result.tail().bytes()));
                }
            }
        }
        return true;
    }
}
