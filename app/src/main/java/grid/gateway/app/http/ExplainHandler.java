package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.RouteExplainSettings;
import grid.gateway.app.config.ServerSettings;
import grid.gateway.app.endpoint.RedactedPath;
import grid.gateway.app.observe.EdgeMeters;
import grid.gateway.app.observe.EdgeMeters.ExplainResult;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * {@code POST /route/explain?path=…[&method=…]} on the admin port: the raw client body in, the {@link RouteExplainer}'s
 * JSON out, for a caller with a bearer token of {@code server.route_explain.token_file}.
 *
 * <pre>
 *   route_explain.enabled false ──> 404 route_explain_disabled         (the body never read)
 *   no or a wrong bearer token  ──> 401 + WWW-Authenticate: Bearer     (the body never read)
 *   the body, under the client bodies' limits: over max_body_bytes 413, slower than body_timeout_ms 408, body budget
 *                                 (max_inflight_body_bytes) spent 503, unreadable 400; each closes the connection
 *   ──> the explainer's answer (200, or 400 for a request the gateway could not take)
 * </pre>
 *
 * Every call is logged (one INFO line: result, method, the explained path, each with what may be a stored id replaced
 * by {@code {id}} ({@link RedactedPath}), the caller's address; never the body or a token) and counted ({@code grid_admin_route_explain_calls_total{result}}):
 * the explainer tells how many blocks of a guessed prompt each cluster holds, so each use of it is visible.
 *
 * <p>Thread-safe: stateless; the settings are read per call, so enabling it or rotating its tokens applies at the
 * next call.
 */
public final class ExplainHandler implements Handler {
    private static final System.Logger LOG = System.getLogger("grid.gateway.admin");
    private static final String BEARER = "bearer ";

    private final RouteExplainer explainer;
    private final Supplier<ServerSettings> server;
    private final BodyBudget budget;
    private final BodyDeadline.Alarm alarm;
    private final EdgeMeters meters;

    /**
     * A handler answering with {@code explainer}, reading {@code server.route_explain} and the body limits from
     * {@code server} per call, holding bodies in {@code budget} (the client bodies' budget), their deadline on
     * {@code scheduler}, counting calls in {@code meters}.
     */
    public ExplainHandler(
            RouteExplainer explainer,
            Supplier<ServerSettings> server,
            BodyBudget budget,
            ScheduledExecutorService scheduler,
            EdgeMeters meters) {
        this.explainer = requireNonNull(explainer, "explainer");
        this.server = requireNonNull(server, "server");
        this.budget = requireNonNull(budget, "budget");
        this.alarm = BodyDeadline.on(requireNonNull(scheduler, "scheduler"));
        this.meters = requireNonNull(meters, "meters");
    }

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        ServerSettings settings = server.get();
        RouteExplainSettings access = settings.routeExplain();
        Optional<String> path = parameter(request, "path");
        String method = parameter(request, "method").orElse("POST");
        String asked =
                RedactedPath.word(method) + " " + path.map(explainer::logged).orElse("(no path)");
        if (!access.enabled()) {
            record(ExplainResult.DISABLED, asked, request);
            refuseUnread(
                    request,
                    response,
                    Status.NOT_FOUND_404,
                    RouteExplainer.error(
                            "route_explain_disabled",
                            "The route explainer is off: set server.route_explain.enabled and token_file."));
            return;
        }
        if (!authorized(request, access)) {
            record(ExplainResult.UNAUTHORIZED, asked, request);
            response.header(HeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"grid-gateway admin\"");
            refuseUnread(
                    request,
                    response,
                    Status.UNAUTHORIZED_401,
                    RouteExplainer.error(
                            "unauthorized",
                            "Send Authorization: Bearer <a token of server.route_explain.token_file>."));
            return;
        }
        byte[] body;
        try (BodyBudget.Hold hold = budget.hold()) {
            BoundedBody.Outcome read =
                    BoundedBody.read(request, settings.maxBodyBytes(), settings.bodyTimeout(), hold, alarm);
            if (!(read instanceof BoundedBody.Outcome.Read whole)) {
                record(ExplainResult.REFUSED, asked, request);
                throw refuse(request, response, read, settings.maxBodyBytes());
            }
            body = whole.bytes();
            RouteExplainer.Answer answer = path.isEmpty()
                    ? RouteExplainer.invalid(
                            "missing_path", "Name the path to explain: POST /route/explain?path=/v1/chat/completions")
                    : explainer.explain(path.get(), method, body);
            record(ExplainResult.ANSWERED, asked, request);
            send(response, Status.create(answer.status()), answer.json());
        }
    }

    /** Whether the request carries a bearer token the token file holds. */
    private static boolean authorized(ServerRequest request, RouteExplainSettings access) {
        Optional<String> credentials = request.headers().first(HeaderNames.AUTHORIZATION);
        if (credentials.isEmpty()
                || request.headers()
                                .all(HeaderNames.AUTHORIZATION, java.util.List::of)
                                .size()
                        != 1) {
            return false;
        }
        String value = credentials.get();
        if (value.length() <= BEARER.length()
                || !value.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
            return false;
        }
        return access.tokens().accepts(value.substring(BEARER.length()).strip());
    }

    private void record(ExplainResult result, String asked, ServerRequest request) {
        meters.explained(result);
        LOG.log(
                result == ExplainResult.UNAUTHORIZED ? System.Logger.Level.WARNING : System.Logger.Level.INFO,
                () -> "route explain " + result.label() + ": " + asked + " from " + ClientAddress.of(request));
    }

    private static Optional<String> parameter(ServerRequest request, String name) {
        return request.query().contains(name) ? Optional.of(request.query().get(name)) : Optional.empty();
    }

    private static void send(ServerResponse response, Status status, String json) {
        response.status(status).header(HeaderValues.CACHE_NO_CACHE).headers().contentType(MediaTypes.APPLICATION_JSON);
        response.send(json);
    }

    /** Answers without reading the body; a request with one loses its connection (its framing was never checked). */
    private static void refuseUnread(ServerRequest request, ServerResponse response, Status status, String json) {
        if (!request.content().hasEntity()) {
            send(response, status, json);
            return;
        }
        response.header(HeaderValues.CONNECTION_CLOSE);
        send(response, status, json);
        BoundedBody.linger(request);
        throw new CloseConnectionException("route explain refused before reading the body");
    }

    /** Answers a body that could not be read whole, as a client's would be, and ends the connection. */
    private static CloseConnectionException refuse(
            ServerRequest request, ServerResponse response, BoundedBody.Outcome outcome, long maxBodyBytes) {
        response.header(HeaderValues.CONNECTION_CLOSE);
        switch (outcome) {
            case BoundedBody.Outcome.TooLarge tooLarge -> {
                send(
                        response,
                        Status.REQUEST_ENTITY_TOO_LARGE_413,
                        RouteExplainer.error(
                                "body_too_large",
                                "The body is larger than max_body_bytes (" + maxBodyBytes + " bytes)."));
                BoundedBody.linger(request);
            }
            case BoundedBody.Outcome.TimedOut timedOut ->
                send(
                        response,
                        Status.REQUEST_TIMEOUT_408,
                        RouteExplainer.error("body_timeout", "The body did not arrive within body_timeout_ms."));
            case BoundedBody.Outcome.OverBudget overBudget -> {
                response.header(HeaderNames.RETRY_AFTER, "5");
                send(
                        response,
                        Status.SERVICE_UNAVAILABLE_503,
                        RouteExplainer.error(
                                "body_budget", "The gateway holds as many request bodies as it may; retry later."));
                BoundedBody.linger(request);
            }
            default ->
                send(
                        response,
                        Status.BAD_REQUEST_400,
                        RouteExplainer.error("body_unreadable", "The body could not be read."));
        }
        return new CloseConnectionException("route explain body refused");
    }
}
