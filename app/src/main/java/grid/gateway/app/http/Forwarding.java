package grid.gateway.app.http;

import grid.gateway.app.forward.AnswerRewrite;
import grid.gateway.app.forward.Attempt;
import grid.gateway.app.forward.BodyTail;
import grid.gateway.app.forward.ForwardRequest;
import grid.gateway.app.forward.RelayPlan;
import grid.gateway.app.forward.RelayResult;
import grid.gateway.app.forward.ResponseRelay;
import grid.gateway.app.forward.SendDeadline;
import grid.gateway.app.forward.UpstreamAnswer;
import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.app.forward.UpstreamForwarder;
import grid.gateway.app.observe.CachedTokens;
import grid.gateway.app.observe.ProxyEvents;
import grid.gateway.app.trace.UpstreamSpan;
import grid.gateway.routing.Route;
import grid.gateway.routing.RouteDecision;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.prefix.UsageReport;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.LoadGate;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Sends a routed request upstream and relays the answer (docs/design.md §3, §6, §9):
 *
 * <pre>
 *   7. send ── CONNECT (refused or timed out) ──> unpinned: next candidate (two tries in all), then 502
 *        │                                         pinned:   503 + Retry-After: 5
 *        ├── (a stale pooled connection was sent again on a new one by the forwarder: counted here)
 *        ├── TIMEOUT before headers ──> 504        RESET (or a malformed head) before headers ──> 502
 *        └── answered ──> 8. learn (2xx confirm, 429/5xx drop) ──> 9. relay ──> cached tokens (counted;
 *                            learn_from_usage); TIMEOUT or RESET before the first body byte ──> 504 / 502;
 *                            2xx with expected_wait: the first body bytes are the first token (router.firstToken)
 * </pre>
 *
 * <p>The failure kinds are {@link UpstreamFailure}'s, sorted once by the forwarder or the relay.
 *
 * <p>Thread-safe: stateless apart from its thread-safe collaborators.
 */
final class Forwarding {
    private static final int MAX_TRIES = 2;
    private static final Runnable NO_FIRST_TOKEN = () -> {};

    private final SiteRouter router;
    private final UpstreamForwarder forwarder;
    private final ResponseRelay relay;
    private final BiFunction<BackendCluster, ForwardRequest, AnswerRewrite> rewrites;
    private final Collaborators extras;

    /**
     * The metric events, the usage reader, the send timeout in force ({@code server.send_timeout_ms}, read at each look
     * at a blocked write, so a reload applies at once, to answers in flight too), and what runs on the request's
     * thread when its answer's first body bytes are about to go to the client (the disconnect probe stops watching:
     * from then on a write notices a gone client).
     */
    record Collaborators(
            ProxyEvents events,
            Function<BodyTail, CachedTokens.UsageReading> usage,
            Supplier<Duration> sendTimeout,
            Runnable answerStarts) {}

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

    /**
     * Forwards an unpinned request along {@code route}, retrying after a connect failure along the route {@code again}
     * gives without the clusters tried (the same kind of route: by affinity and load, or a new conversation's).
     */
    void routed(
            Route route,
            PromptKeys keys,
            Function<Set<ClusterId>, Route> again,
            ForwardRequest request,
            ServerResponse response) {
        // The first decision's candidates: a retry after a connect failure chooses among fewer, by design.
        request.access().candidates(route.candidates());
        request.trace().routing(keys.model(), route.candidates());
        Set<ClusterId> tried = new HashSet<>();
        Route next = route;
        // The first decision's affinity outcome, the one counted: a retry is no second decision.
        Optional<AffinityOutcome> outcome =
                route instanceof Route.Forward first ? first.decision().outcome() : Optional.empty();
        while (true) {
            switch (next) {
                case Route.UnknownModel unknown -> {
                    ErrorAnswers.send(response, request.errors(), ApiError.MODEL_NOT_FOUND);
                    return;
                }
                case Route.NoneAdmitted none -> {
                    ApiError error = tried.isEmpty() ? ApiError.NONE_ADMITTED : ApiError.UPSTREAM_UNREACHABLE;
                    ErrorAnswers.send(response, request.errors(), error);
                    return;
                }
                case Route.Forward forward -> {
                    if (attempt(forward.decision().withOutcome(outcome), request, response)) {
                        return;
                    }
                    tried.add(forward.decision().cluster().id());
                    if (tried.size() == MAX_TRIES) {
                        ErrorAnswers.send(response, request.errors(), ApiError.UPSTREAM_UNREACHABLE);
                        return;
                    }
                    next = again.apply(Set.copyOf(tried));
                }
            }
        }
    }

    /** Forwards a pinned request to its cluster only. */
    void pinned(BackendCluster cluster, ForwardRequest request, ServerResponse response) {
        request.access().pinned();
        request.trace().pinned();
        if (!attempt(RouteDecision.unkeyed(cluster), request, response)) {
            ErrorAnswers.send(response, request.errors(), ApiError.PINNED_UNAVAILABLE);
        }
    }

    /**
     * What a 2xx answer's usage reported, read by the router per cluster and API (a usage without a count is 0 only
     * from a cluster known to report there; an answer without usage reports nothing): counted against the prediction,
     * and, for a request routed on its keys, taught to the router ({@code learn_from_usage}; ignored when that is off).
     */
    private void usage(RouteDecision decision, CachedTokens.UsageReading usage, ForwardRequest request) {
        OptionalLong reported = OptionalLong.empty();
        if (usage.usage() || usage.cachedTokens().isPresent()) {
            UsageReport report = new UsageReport(api(request.target()), usage.cachedTokens());
            reported = router.usageReported(decision, report);
        }
        request.access().cachedTokens(decision.predictedCachedTokens(), reported);
        extras.events()
                .cachedTokens(
                        decision.cluster().id(),
                        decision.outcome(),
                        (long) decision.run() * LoadGate.TOKENS_PER_BLOCK,
                        reported);
    }

    /** The API of a request target (its path without the query), if it is one of the four. */
    private static Optional<ApiDialect> api(String target) {
        int query = target.indexOf('?');
        return ApiDialect.forPath(query < 0 ? target : target.substring(0, query));
    }

    /**
     * One try; false only when no connection could be made (nothing was sent, so another cluster may be tried). However
     * it ends, the request is no longer in flight at that cluster afterwards.
     */
    private boolean attempt(RouteDecision routed, ForwardRequest request, ServerResponse response) {
        try {
            return tried(routed, request, response);
        } finally {
            router.ended(routed);
        }
    }

    private boolean tried(RouteDecision routed, ForwardRequest request, ServerResponse response) {
        RouteDecision decision = learnable(routed, request);
        request.access().sending(decision);
        // The try's client span ends with the next try or when the request is answered (the relay included).
        UpstreamSpan span = request.trace().upstream(decision);
        Attempt attempt = forwarder.send(decision.cluster(), request);
        try {
            return outcome(decision, attempt, span, request, response);
        } finally {
            // The answer is this try's to end however it goes (the relay ends it first when it gets that far): a
            // step that throws between its head and its relay would otherwise leave its connection neither pooled
            // nor closed, the engine generating for nobody and the idle alarm re-arming for ever.
            if (attempt instanceof Attempt.Answered answered) {
                answered.answer().close();
            }
        }
    }

    /** Counts and answers one try's outcome; false only when no connection could be made. */
    private boolean outcome(
            RouteDecision decision,
            Attempt attempt,
            UpstreamSpan span,
            ForwardRequest request,
            ServerResponse response) {
        // Counted against the cluster whose engine made it needed (Attempt.Retry), which may not be decision's.
        attempt.retried().ifPresent(retry -> {
            extras.events().upstreamRetried(retry.cluster(), retry.reason());
            span.resent(retry.reason().label());
        });
        switch (attempt) {
            case Attempt.Failed failed -> span.failed(failed.failure().label());
            case Attempt.Answered answered -> span.answered(answered.answer().status());
        }
        if (!(attempt instanceof Attempt.Answered) && clientGone()) {
            return true; // nothing to retry either
        }
        return switch (attempt) {
            case Attempt.Failed failed -> failed(decision, failed.failure(), request, response);
            case Attempt.Answered answered -> {
                answered(decision, answered, request, response);
                yield true;
            }
        };
    }

    /**
     * Whether the client went away while the engine had given it nothing yet: {@link ClientDisconnectProbe} interrupted
     * the request's thread, which closed the upstream socket under its wait (for the answer's head, or for its first
     * body bytes). Nobody is left to answer, and the cluster is not to blame: no upstream error is counted, the router
     * hears no failure (which would drop the prefix keys the answer's status confirmed), no 502 is written. The
     * shutdown's cut at its grace deadline interrupts the same way, and is answered the same way: the handler then
     * closes the connection ({@code ProxyHandler}).
     */
    private static boolean clientGone() {
        return Thread.currentThread().isInterrupted();
    }

    /** A call that does no prefill is routed like any other, but its answer confirms and drops nothing. */
    private static RouteDecision learnable(RouteDecision routed, ForwardRequest request) {
        return request.prefills() ? routed : routed.withoutKeys();
    }

    /** Counts a failed try; a connect failure is the router's to hear (ejection), any other is answered here. */
    private boolean failed(
            RouteDecision decision, UpstreamFailure failure, ForwardRequest request, ServerResponse response) {
        extras.events().upstreamFailed(decision.cluster().id(), failure);
        request.access().upstreamFailed(failure);
        if (failure == UpstreamFailure.CONNECT) {
            router.connectFailed(decision.cluster());
            return false;
        }
        answerFailure(decision, failure, request, response);
        return true;
    }

    /**
     * The cluster took the request and then failed it: the client gets the gateway's 504 (timeout) or 502, and the
     * router hears that status, so keys a 2xx already confirmed are dropped again.
     */
    private void answerFailure(
            RouteDecision decision, UpstreamFailure failure, ForwardRequest request, ServerResponse response) {
        ApiError error = failure == UpstreamFailure.TIMEOUT ? ApiError.UPSTREAM_TIMEOUT : ApiError.UPSTREAM_UNREACHABLE;
        router.answered(decision, error.status());
        ErrorAnswers.send(response, request.errors(), error);
    }

    /**
     * What the relay runs at the answer's first body bytes: for a 2xx answer to a request in its cluster's prefill
     * backlog ({@code load.order_by: expected_wait}; a pinned request or another order has none), the router hears
     * its first token. A stream's first bytes are its first event, which an engine writes once the prompt is computed
     * (its headers may come before); a non-streamed answer's first bytes come after the whole generation, so its
     * prefill is certainly done (docs/design.md §13).
     */
    private Runnable firstToken(RouteDecision decision, int status) {
        return status >= 200 && status < 300 && decision.backlogMark() >= 0
                ? () -> router.firstToken(decision)
                : NO_FIRST_TOKEN;
    }

    /**
     * Whether the answer's usage is read: a 2xx answer to a request that computed a prompt, in no content coding (a
     * client that asked for gzip gets the engine's compressed body as it came; its tail is no text, so none is kept).
     */
    private static boolean readsUsage(UpstreamAnswer answer, ForwardRequest request) {
        int status = answer.status();
        return status >= 200 && status < 300 && request.prefills() && !answer.encoded();
    }

    /** Learns from the status (2xx confirms the blocks there, 429/5xx drops them), relays, then reads the usage. */
    private void answered(
            RouteDecision decision, Attempt.Answered answered, ForwardRequest request, ServerResponse response) {
        // No try follows an answer: the body goes, so that an answer read for minutes holds its buffers only.
        request.answerBegan();
        BackendCluster cluster = decision.cluster();
        int status = answered.answer().status();
        extras.events().upstreamAnswered(cluster.id(), status, answered.toHeaders());
        request.access().upstreamAnswered(status, answered.toHeaders());
        router.answered(decision, status);
        AnswerRewrite rewrite = request.tagsIds() ? rewrites.apply(cluster, request) : AnswerRewrite.NONE;
        Runnable firstToken = firstToken(decision, status);
        Runnable answerStarts = extras.answerStarts();
        RelayPlan plan = new RelayPlan(
                rewrite,
                () -> {
                    answerStarts.run();
                    firstToken.run();
                },
                request.access(),
                // Counted once a client connection: the listener's send watch may cut the same client at once.
                new SendDeadline(
                        extras.sendTimeout(),
                        request.progress(),
                        request.timeoutClaim().counting(extras.events()::sendTimedOut)),
                request.memory(),
                readsUsage(answered.answer(), request));
        RelayResult result = relay.relay(answered.answer(), response, plan);
        if (result.failedBeforeBody().isPresent() && clientGone()) {
            return; // the answer's head had come, its body not yet (a stream's headers, then a long prefill)
        }
        if (result.failedBeforeBody().isPresent()) {
            UpstreamFailure failure = result.failedBeforeBody().get();
            extras.events().upstreamFailed(cluster.id(), failure);
            request.access().upstreamFailed(failure);
            answerFailure(decision, failure, request, response);
        } else if (readsUsage(answered.answer(), request)) {
            usage(decision, extras.usage().apply(result.tail()), request);
        }
    }
}
