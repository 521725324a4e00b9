package grid.gateway.app.http;

import grid.gateway.app.forward.ForwardRequest;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.rewrite.PathId;
import grid.gateway.app.rewrite.PathIds;
import grid.gateway.app.rewrite.RequestIdStripper;
import grid.gateway.app.rewrite.StoredIds;
import grid.gateway.routing.PinResult;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagParse;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Handles one client request end to end, on its virtual thread, blocking style (SPEC §3; STYLE 2.3):
 *
 * <pre>
 *   1. PathPolicy           a path this role does not serve → 404; ApiMethods: a method the path does not define → 405
 *   2. BoundedBody          held once; over max_body_bytes → 413, slower than body_timeout_ms → 408, budget of body
 *                           bytes spent → 503, framing broken or client gone mid-body → 400 (all four close)
 *   3. stored ids           in the path and in Responses body fields → SiteRouter.pin → strip → that cluster only;
 *                           a Responses body the strict scanner rejects → 400
 *   4. new conversation     POST /v1/conversations → local site first
 *   5. PromptKeyer          model, cache_salt, block keys (or a no-keys reason: routed on load)
 *   6. SiteRouter.route     → Forwarding: send, retry once on connect failure, learn, relay, tag ids
 * </pre>
 *
 * <p>An answer the gateway gives itself before reading the body (404, 405, the model list) closes a connection whose
 * request has a body: that body's framing was never checked, so what follows it cannot be trusted as a next request.
 *
 * <p>Thread-safe: stateless; the path policy and body limit are read from the current config on every request.
 */
public final class ProxyHandler implements Handler {
    private static final List<String> PINNABLE_BODIES =
            List.of("/v1/responses", "/v1/responses/input_tokens", "/v1/responses/compact");

    private static final System.Logger LOG = System.getLogger(ProxyHandler.class.getName());

    private final SiteRouter router;
    private final ApiMethods methods = new ApiMethods();
    private final PromptKeyer keyer = new PromptKeyer();
    private final TagCodec codec = new TagCodec();
    private final PathIds pathIds = new PathIds();
    private final RequestIdStripper stripper = new RequestIdStripper();
    private final Forwarding forwarding;
    private final Supplier<PathPolicy> policy;
    private final LongSupplier maxBodyBytes;
    private final Supplier<Duration> bodyTimeout;
    private final BodyBudget budget;
    private final ProxyEvents events;
    private final ClientDisconnectProbe probe;

    ProxyHandler(
            SiteRouter router, Forwarding forwarding, Limits limits, ProxyEvents events, ClientDisconnectProbe probe) {
        this.router = router;
        this.forwarding = forwarding;
        this.policy = limits.policy();
        this.maxBodyBytes = limits.maxBodyBytes();
        this.bodyTimeout = limits.bodyTimeout();
        this.budget = limits.budget();
        this.events = events;
        this.probe = probe;
    }

    /** The parts of the config the handler reads per request, and the process-wide budget of body bytes. */
    record Limits(
            Supplier<PathPolicy> policy,
            LongSupplier maxBodyBytes,
            Supplier<Duration> bodyTimeout,
            BodyBudget budget) {}

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        String path = request.path().rawPath();
        if (!policy.get().serves(path)) {
            events.refused(InboundRefusal.PATH_NOT_FOUND);
            answerUnread(request, response, ApiError.PATH_NOT_FOUND);
            return;
        }
        Method method = request.prologue().method();
        List<Method> allowed = methods.allowed(path);
        if (!allowed.contains(method)) {
            events.refused(InboundRefusal.METHOD_NOT_ALLOWED);
            response.header(HeaderNames.ALLOW, ApiMethods.allowHeader(allowed));
            answerUnread(request, response, ApiError.METHOD_NOT_ALLOWED);
            return;
        }
        if (path.equals("/v1/models")) {
            boolean unread = request.content().hasEntity();
            if (unread) {
                response.header(HeaderValues.CONNECTION_CLOSE);
            }
            ModelList.send(response, router.grid());
            if (unread) {
                BoundedBody.linger(request);
                throw new CloseConnectionException("GET /v1/models with an unread body");
            }
            return;
        }
        try (BodyBudget.Hold hold = budget.hold()) {
            byte[] body = body(request, response, hold);
            String query = request.query().rawValue();
            ForwardRequest forward = new ForwardRequest(
                    method,
                    path,
                    query.isEmpty() ? path : path + "?" + query,
                    request.headers(),
                    ClientAddress.of(request),
                    body);
            // From here on the client has sent everything and may wait long for the engine's first byte: a client
            // that leaves meanwhile is noticed by the probe, not only at the next write.
            try (ClientDisconnectProbe.Watch watch = probe.watch(request)) {
                dispatch(method, path, forward, response);
            }
        }
    }

    /** The whole body, held in {@code hold}; any other outcome is answered and ends the connection (thrown). */
    private byte[] body(ServerRequest request, ServerResponse response, BodyBudget.Hold hold) {
        return switch (BoundedBody.read(request, maxBodyBytes.getAsLong(), bodyTimeout.get(), hold)) {
            case BoundedBody.Outcome.Read read -> read.bytes();
            case BoundedBody.Outcome.TooLarge tooLarge ->
                throw refuse(request, response, ApiError.BODY_TOO_LARGE, InboundRefusal.BODY_TOO_LARGE);
            case BoundedBody.Outcome.TimedOut timedOut ->
                throw refuse(request, response, ApiError.BODY_TIMEOUT, InboundRefusal.BODY_TIMEOUT);
            case BoundedBody.Outcome.OverBudget overBudget ->
                throw refuse(request, response, ApiError.BODY_BUDGET, InboundRefusal.BODY_BUDGET);
            case BoundedBody.Outcome.Unreadable unreadable -> {
                // A client fault, not the gateway's: one line at FINE, no stack trace, and a metric.
                LOG.log(System.Logger.Level.DEBUG, () -> "request body unreadable: " + unreadable.cause());
                throw refuse(request, response, ApiError.BODY_UNREADABLE, InboundRefusal.BODY_UNREADABLE);
            }
        };
    }

    /** Answers {@code error} without reading the body; a request with a body then loses its connection. */
    private static void answerUnread(ServerRequest request, ServerResponse response, ApiError error) {
        if (!request.content().hasEntity()) {
            ErrorAnswers.send(response, request.path().rawPath(), error);
            return;
        }
        ErrorAnswers.sendClosing(response, request.path().rawPath(), error);
        BoundedBody.linger(request);
        throw new CloseConnectionException("answered before reading the body: " + error.status());
    }

    private void dispatch(Method method, String path, ForwardRequest forward, ServerResponse response) {
        Optional<Named> read = named(method, path, forward.body());
        if (read.isEmpty()) {
            events.refused(InboundRefusal.BODY_UNSCANNABLE);
            ErrorAnswers.send(response, path, ApiError.BODY_UNSCANNABLE);
            return;
        }
        Named named = read.get();
        if (!named.values().isEmpty()) {
            pinned(named, forward, response);
        } else if (method == Method.POST && path.equals("/v1/conversations")) {
            forwarding.routed(router.newConversation(), noKeys(), forward, response);
        } else {
            PromptKeys keys = key(path, forward.body());
            keys.noKeysReason().ifPresent(events::noKeys);
            forwarding.routed(router.route(keys), keys, forward, response);
        }
    }

    /**
     * Answers a refused body and returns the exception that ends its connection, so the unread rest can never be read
     * as a next request. A body refused for its size or the budget is drained first (lingering close); a slow one is
     * not waited for, and a broken one cannot be read on.
     */
    private CloseConnectionException refuse(
            ServerRequest request, ServerResponse response, ApiError error, InboundRefusal reason) {
        events.refused(reason);
        ErrorAnswers.sendClosing(response, request.path().rawPath(), error);
        if (reason == InboundRefusal.BODY_TOO_LARGE || reason == InboundRefusal.BODY_BUDGET) {
            BoundedBody.linger(request);
        }
        return new CloseConnectionException("request body refused: " + reason.label());
    }

    private void pinned(Named named, ForwardRequest forward, ServerResponse response) {
        switch (router.pin(named.values())) {
            case PinResult.NotFound notFound -> ErrorAnswers.send(response, forward.path(), ApiError.ID_NOT_FOUND);
            case PinResult.Conflict conflict -> ErrorAnswers.send(response, forward.path(), ApiError.CONFLICTING_IDS);
            case PinResult.Unavailable unavailable ->
                ErrorAnswers.send(response, forward.path(), ApiError.PINNED_UNAVAILABLE);
            case PinResult.Pinned pinned -> forwarding.pinned(pinned.cluster(), stripped(forward, named), response);
        }
    }

    /** The stored ids a request names: in its path, and in the Responses body fields (every copy). */
    private record Named(Optional<PathId> path, StoredIds body) {
        List<String> values() {
            List<String> ids = new ArrayList<>();
            path.ifPresent(id -> ids.add(id.value()));
            ids.addAll(body.values());
            return ids;
        }
    }

    /**
     * The stored ids the request names; empty when its body could name one but the strict scanner cannot read it (an
     * engine's lenient parser might still find an id there, unpinned).
     */
    private Optional<Named> named(Method method, String path, byte[] body) {
        Optional<PathId> inPath = pathIds.find(path);
        if (method != Method.POST || !PINNABLE_BODIES.contains(path)) {
            return Optional.of(new Named(inPath, StoredIds.none()));
        }
        return stripper.read(body).map(ids -> new Named(inPath, ids));
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

    private PromptKeys key(String path, byte[] body) {
        Optional<ApiDialect> dialect = ApiDialect.forPath(path)
                .or(() ->
                        path.equals("/v1/messages/count_tokens") ? Optional.of(ApiDialect.MESSAGES) : Optional.empty())
                .or(() -> PINNABLE_BODIES.contains(path) ? Optional.of(ApiDialect.RESPONSES) : Optional.empty());
        return dialect.map(d -> keyer.key(d, body)).orElseGet(ProxyHandler::noKeys);
    }

    private static PromptKeys noKeys() {
        return new PromptKeys(
                Optional.empty(), Optional.empty(), BlockKeys.none(), Optional.of(NoKeysReason.EMPTY_PROMPT));
    }
}
