package grid.gateway.app.http;

import grid.gateway.app.access.AccessRecord;
import grid.gateway.app.access.Ending;
import grid.gateway.app.access.ShutdownCut;
import grid.gateway.app.endpoint.Classified;
import grid.gateway.app.endpoint.Endpoint;
import grid.gateway.app.endpoint.Endpoint.Handling;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.endpoint.ErrorShape;
import grid.gateway.app.forward.ForwardRequest;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.observe.ProxyEvents;
import grid.gateway.app.rewrite.PathId;
import grid.gateway.app.rewrite.PathIds;
import grid.gateway.app.rewrite.RequestIdStripper;
import grid.gateway.app.rewrite.StoredIds;
import grid.gateway.app.trace.RequestTrace;
import grid.gateway.app.trace.Tracing;
import grid.gateway.routing.NamedId;
import grid.gateway.routing.PinResult;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagParse;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Handles one client request end to end, on its virtual thread, blocking style (docs/design.md §3; STYLE 2.3). {@link #handle}
 * is the README's "How a request is routed", step by step:
 *
 * <pre>
 *   1. EndpointTable        the path classified once; a path this role does not serve → 404, a method the endpoint
 *                           does not define → 405; the model list is answered here
 *   2. BoundedBody          held once; over max_body_bytes → 413, slower than body_timeout_ms → 408, budget of body
 *                           bytes spent → 503, framing broken or client gone mid-body → 400 (all four close)
 *   3. stored ids           in the path and in Responses body fields → SiteRouter.pin → strip → that cluster only;
 *                           a Responses body the strict scanner rejects → 400
 *   4. new conversation     POST /v1/conversations → local site first
 *   5. PromptKeyer          model, cache_salt, block keys (or a no-keys reason: routed on load); not walked
 *                           when fewer than two clusters serve the model (one_candidate)
 *   6. SiteRouter.route     → 7–9. Forwarding: send (retry once on connect failure), learn, relay, tag ids
 * </pre>
 *
 * <p>An answer the gateway gives itself before reading the body (404, 405, the model list) closes a connection whose
 * request has a body: that body's framing was never checked, so what follows it cannot be trusted as a next request.
 *
 * <p>Thread-safe: stateless; the path policy and body limit are read from the current config on every request.
 */
public final class ProxyHandler implements Handler {
    private static final System.Logger LOG = System.getLogger(ProxyHandler.class.getName());

    private final SiteRouter router;
    private final PromptKeyer keyer = new PromptKeyer();
    private final TagCodec codec = new TagCodec();
    private final PathIds pathIds = new PathIds();
    private final RequestIdStripper stripper = new RequestIdStripper();
    private final Forwarding forwarding;
    private final Inbound inbound;
    private final ProxyEvents events;
    private final ClientDisconnectProbe probe;

    ProxyHandler(
            SiteRouter router,
            Forwarding forwarding,
            Inbound inbound,
            ProxyEvents events,
            ClientDisconnectProbe probe) {
        this.router = router;
        this.forwarding = forwarding;
        this.inbound = inbound;
        this.events = events;
        this.probe = probe;
    }

    /**
     * What a request is checked against: the endpoint table, and the parts of the config the handler reads per request
     * (the path policy, the body limits), the process-wide budget of body bytes, the alarm that ends a body read at
     * its deadline, the tracing that continues the client's trace, and the send watch that holds each client
     * connection's claim on its send timeout's count.
     */
    record Inbound(
            EndpointTable endpoints,
            Supplier<PathPolicy> policy,
            LongSupplier maxBodyBytes,
            Supplier<Duration> bodyTimeout,
            BodyBudget budget,
            BodyDeadline.Alarm bodyAlarm,
            Tracing tracing,
            SendWatch sends) {}

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        // 1. The endpoint table classifies the path, once; a path not served → 404, a method not defined → 405,
        //    the model list is answered here.
        Classified call = inbound.endpoints().classify(request.path().rawPath());
        AccessRecord access = AccessRecord.of(request);
        access.path(call, router.grid());
        Endpoint endpoint = call.endpoint();
        if (!served(call, request, response)) {
            return;
        }
        if (endpoint.handling() == Handling.MODEL_LIST) {
            listModels(request, response);
            return;
        }
        try (BodyBudget.Hold hold = inbound.budget().hold();
                RequestTrace trace = inbound.tracing().begin(request, response, endpoint.path())) {
            // 2. The body, held once (or refused, and the connection closed).
            ForwardRequest forward = forwardRequest(
                    request, endpoint, body(request, response, endpoint, hold), client(request, access, trace, hold));
            // The client has sent everything and may wait long for the engine's first byte: a client that leaves
            // meanwhile is noticed by the probe, not only at the next write.
            ClientDisconnectProbe.Watch watch = probe.watch(request);
            RuntimeException thrown = null;
            try (watch) {
                // 3. Stored ids in the path and the body pin the request to the cluster that holds them.
                Optional<Named> named = named(call, forward.body());
                if (named.isEmpty()) {
                    events.refused(InboundRefusal.BODY_UNSCANNABLE);
                    ErrorAnswers.send(response, endpoint.errors(), ApiError.BODY_UNSCANNABLE);
                } else if (!named.get().values().isEmpty()) {
                    pinnedIfServed(named.get(), forward, response);
                } else if (endpoint.handling() == Handling.NEW_CONVERSATION) {
                    // 4. A new conversation goes to the local site first.
                    forwarding.routed(
                            router.newConversation(Set.of()), noKeys(), router::newConversation, forward, response);
                } else {
                    // 5. The prompt's keys; 6. the route; 7–9. send, learn, relay (Forwarding).
                    PromptKeys keys = keys(endpoint, forward.body());
                    forwarding.routed(router.route(keys), keys, tried -> router.route(keys, tried), forward, response);
                }
                closeIfCutUnanswered(response);
            } catch (RuntimeException e) {
                thrown = e;
                throw e;
            } finally {
                if (watch.clientGone()) {
                    access.clientGone();
                }
                if (trace.recording()) {
                    ended(access.outcome(thrown, response), trace);
                }
            }
        }
    }

    /**
     * Ends the connection of a request the shutdown cut before any of its answer went out (it waited for the engine's
     * head or first body bytes: the cut's interrupt closed that wait, and the forwarding, taking the interrupt for a
     * client gone, answered nothing). Thrown, as a gone client's watch does: a handler that returns without an answer
     * is Helidon's internal error, a 500 (a second, unrouted access line, a WARNING of a gateway fault) for a request
     * the gateway chose to cut.
     */
    private static void closeIfCutUnanswered(ServerResponse response) {
        if (!response.isSent() && ShutdownCut.cutHere()) {
            throw new CloseConnectionException("cut by the shutdown before its answer began");
        }
    }

    /** Tells the trace how a forwarded request ended when that was not answered or refused (its access line's end). */
    private static void ended(AccessRecord.Outcome outcome, RequestTrace trace) {
        Ending ending = outcome.ending();
        if (ending != Ending.ANSWERED && ending != Ending.REFUSED) {
            trace.endedAbnormally(ending.label(), outcome.nothingSent());
        }
    }

    /**
     * Whether the request's head is acceptable, the role serves the path and its endpoint defines the method; if not,
     * answers 501 or 400 ({@link RequestHead}), 404 or 405, unread.
     */
    private boolean served(Classified call, ServerRequest request, ServerResponse response) {
        Endpoint endpoint = call.endpoint();
        Optional<ApiError> head = RequestHead.problem(request);
        if (head.isPresent()) {
            events.refused(
                    head.get() == ApiError.INVALID_HEADER
                            ? InboundRefusal.INVALID_HEADER
                            : InboundRefusal.METHOD_NOT_IMPLEMENTED);
            answerUnread(request, response, endpoint.errors(), head.get());
            return false;
        }
        if (!inbound.policy().get().serves(call)) {
            events.refused(InboundRefusal.PATH_NOT_FOUND);
            answerUnread(request, response, endpoint.errors(), ApiError.PATH_NOT_FOUND);
            return false;
        }
        if (!endpoint.allows(request.prologue().method())) {
            events.refused(InboundRefusal.METHOD_NOT_ALLOWED);
            response.header(HeaderNames.ALLOW, endpoint.allowHeader());
            answerUnread(request, response, endpoint.errors(), ApiError.METHOD_NOT_ALLOWED);
            return false;
        }
        return true;
    }

    /** The model list, answered by the gateway; a request with a body then loses its connection. */
    private void listModels(ServerRequest request, ServerResponse response) {
        boolean unread = request.content().hasEntity();
        if (unread) {
            response.header(HeaderValues.CONNECTION_CLOSE);
        }
        ModelList.send(response, router.grid());
        if (unread) {
            BoundedBody.linger(request);
            throw new CloseConnectionException("GET /v1/models with an unread body");
        }
    }

    /** The request as it is forwarded: the raw path and query, the client's headers and address, the body. */
    private static ForwardRequest forwardRequest(
            ServerRequest request, Endpoint endpoint, byte[] body, ForwardRequest.Client client) {
        client.access().bodyRead(body.length);
        String path = request.path().rawPath();
        String query = request.query().rawValue();
        return new ForwardRequest(
                request.prologue().method(), endpoint, query.isEmpty() ? path : path + "?" + query, client, body);
    }

    /**
     * Who sent the request: its headers and address (as the access log names it), its access record and trace, and
     * the request's hold of the budget, where the answer's memory is counted too. The connection's send-timeout claim
     * is taken now, while the connection is surely watched, though only a relay that cuts its client uses it: looked
     * up at the cut, a connection the send watch had already cut (and so stopped watching) would give a claim of its
     * own, and the one cut would be counted twice.
     */
    private ForwardRequest.Client client(
            ServerRequest request, AccessRecord access, RequestTrace trace, BodyBudget.Hold hold) {
        String logged = access.loggedClient();
        return new ForwardRequest.Client(
                request.headers(),
                logged != null ? logged : ClientAddress.of(request),
                access,
                trace,
                hold::holdAnswer,
                ClientSendQueue.of(request),
                inbound.sends().claimOf(request),
                hold::bodyDone);
    }

    /** The whole body, held in {@code hold}; any other outcome is answered and ends the connection (thrown). */
    private byte[] body(ServerRequest request, ServerResponse response, Endpoint endpoint, BodyBudget.Hold hold) {
        ErrorShape errors = endpoint.errors();
        return switch (BoundedBody.read(
                request,
                inbound.maxBodyBytes().getAsLong(),
                inbound.bodyTimeout().get(),
                hold,
                inbound.bodyAlarm())) {
            case BoundedBody.Outcome.Read read -> read.bytes();
            case BoundedBody.Outcome.TooLarge tooLarge ->
                throw refuse(request, response, errors, ApiError.BODY_TOO_LARGE, InboundRefusal.BODY_TOO_LARGE);
            case BoundedBody.Outcome.TimedOut timedOut ->
                throw refuse(request, response, errors, ApiError.BODY_TIMEOUT, InboundRefusal.BODY_TIMEOUT);
            case BoundedBody.Outcome.OverBudget overBudget ->
                throw refuse(request, response, errors, ApiError.BODY_BUDGET, InboundRefusal.BODY_BUDGET);
            case BoundedBody.Outcome.Unreadable unreadable
            when ShutdownCut.cutHere() ->
                // The shutdown's cut closed the read (its interrupt), not the client: no refusal, nothing to answer.
                throw new CloseConnectionException("cut by the shutdown while its body was read");
            case BoundedBody.Outcome.Unreadable unreadable -> {
                // A client fault, not the gateway's: one line at FINE, no stack trace, and a metric.
                LOG.log(System.Logger.Level.DEBUG, () -> "request body unreadable: " + unreadable.cause());
                throw refuse(request, response, errors, ApiError.BODY_UNREADABLE, InboundRefusal.BODY_UNREADABLE);
            }
        };
    }

    /** Answers {@code error} without reading the body; a request with a body then loses its connection. */
    private static void answerUnread(
            ServerRequest request, ServerResponse response, ErrorShape errors, ApiError error) {
        if (!request.content().hasEntity()) {
            ErrorAnswers.send(response, errors, error);
            return;
        }
        ErrorAnswers.sendClosing(response, errors, error);
        BoundedBody.linger(request);
        throw new CloseConnectionException("answered before reading the body: " + error.status());
    }

    /**
     * Answers a refused body and returns the exception that ends its connection, so the unread rest can never be read
     * as a next request. A body refused for its size or the budget is drained first (lingering close); a slow one is
     * not waited for, and a broken one cannot be read on.
     */
    private CloseConnectionException refuse(
            ServerRequest request, ServerResponse response, ErrorShape errors, ApiError error, InboundRefusal reason) {
        events.refused(reason);
        ErrorAnswers.sendClosing(response, errors, error);
        if (reason == InboundRefusal.BODY_TOO_LARGE || reason == InboundRefusal.BODY_BUDGET) {
            BoundedBody.linger(request);
        }
        return new CloseConnectionException("request body refused: " + reason.label());
    }

    /** Pins a request naming stored ids; a provider answers 404 instead: no stored state passes through it. */
    private void pinnedIfServed(Named named, ForwardRequest forward, ServerResponse response) {
        if (!inbound.policy().get().servesStoredIds()) {
            events.refused(InboundRefusal.STORED_ID_VIA_PROVIDER);
            ErrorAnswers.send(response, forward.errors(), ApiError.ID_NOT_FOUND);
            return;
        }
        pinned(named, forward, response);
    }

    private void pinned(Named named, ForwardRequest forward, ServerResponse response) {
        switch (router.pin(named.values())) {
            case PinResult.NotFound notFound -> ErrorAnswers.send(response, forward.errors(), ApiError.ID_NOT_FOUND);
            case PinResult.Conflict conflict -> ErrorAnswers.send(response, forward.errors(), ApiError.CONFLICTING_IDS);
            case PinResult.Unavailable unavailable ->
                ErrorAnswers.send(response, forward.errors(), ApiError.PINNED_UNAVAILABLE);
            case PinResult.Pinned pinned -> forwarding.pinned(pinned.cluster(), stripped(forward, named), response);
        }
    }

    /** The stored ids a request names: in its path, and in the Responses body fields (every copy). */
    private record Named(Optional<PathId> path, StoredIds body) {
        List<NamedId> values() {
            List<NamedId> ids = new ArrayList<>();
            path.ifPresent(id -> ids.add(new NamedId(id.kind(), id.value())));
            ids.addAll(body.named());
            return ids;
        }
    }

    /**
     * The stored ids the request names; empty when its body could name one but the strict scanner cannot read it (an
     * engine's lenient parser might still find an id there, unpinned).
     */
    private Optional<Named> named(Classified call, byte[] body) {
        if (!call.endpoint().idsInBody()) {
            return Optional.of(new Named(call.pathId(), StoredIds.none()));
        }
        return stripper.read(body).map(ids -> new Named(call.pathId(), ids));
    }

    /** The request with every tag it names replaced by the engine's own id; every other byte unchanged. */
    private ForwardRequest stripped(ForwardRequest forward, Named named) {
        UnaryOperator<String> strip = this::engineId;
        String target = named.path()
                .map(id -> pathIds.replace(forward.target(), id, strip.apply(id.value())))
                .orElse(forward.target());
        byte[] body = named.body().isEmpty() ? forward.body() : stripper.strip(forward.body(), named.body(), strip);
        return forward.with(target, body);
    }

    private String engineId(String tagged) {
        return codec.parse(tagged) instanceof TagParse.Tagged t ? codec.strip(t.id()) : tagged;
    }

    /**
     * The keys of a body its endpoint keys, else none (routed on load); a missing key is counted by its reason. A body
     * whose model fewer than two clusters serve is validated but not keyed: keys could change no decision.
     */
    private PromptKeys keys(Endpoint endpoint, byte[] body) {
        PromptKeys keys = endpoint.keyedAs()
                .map(d -> keyer.key(d, body, router::keysMatter))
                .orElseGet(ProxyHandler::noKeys);
        keys.noKeysReason().filter(NoKeysReason::counted).ifPresent(events::noKeys);
        return keys;
    }

    private static PromptKeys noKeys() {
        return new PromptKeys(
                Optional.empty(), Optional.empty(), BlockKeys.none(), Optional.of(NoKeysReason.EMPTY_PROMPT));
    }
}
