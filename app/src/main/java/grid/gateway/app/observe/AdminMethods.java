package grid.gateway.app.observe;

import grid.gateway.app.endpoint.ErrorShape;
import grid.gateway.app.http.ApiError;
import grid.gateway.app.http.BoundedBody;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Optional;

/**
 * The admin listener's paths and their methods, decided before Helidon's routing, so that every path answers an
 * operator's tools alike (RFC 9110 §9.1, §15.5.6):
 *
 * <pre>
 *   /metrics, /metrics/…, /health/live, /health/ready   GET; HEAD answered as GET, without content
 *   /route/explain                                       POST (when the admin server serves it)
 *   any other method on those paths                      405 + Allow (OPTIONS, PUT, made-up ones)
 *   any other path                                       404
 * </pre>
 *
 * <p>The pages answer their refusals in text, as they answer everything; {@code /route/explain} in the OpenAI JSON
 * shape its other errors have. A refused request with a body loses its connection after the answer (its body's framing
 * was never checked), its body drained first ({@link BoundedBody#linger}). That an answer to HEAD carries no content is the
 * connection writer's work (the client and admin listeners' {@code HeadAnswers}).
 *
 * <p>Thread-safe: immutable.
 */
final class AdminMethods implements Filter {
    private static final String PAGE_METHODS = "GET, HEAD";
    private static final String EXPLAIN = "/route/explain";

    private final boolean explain;

    /** The filter of an admin listener that serves {@code POST /route/explain} when {@code explain}. */
    AdminMethods(boolean explain) {
        this.explain = explain;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        // The decoded path, as Helidon's routing matches it.
        String path = req.path().path();
        Method method = req.prologue().method();
        Optional<String> page = page(path);
        if (page.isPresent()) {
            if (method == Method.HEAD) {
                HttpPrologue head = req.prologue();
                req.prologue(HttpPrologue.create(
                        head.rawProtocol(),
                        head.protocol(),
                        head.protocolVersion(),
                        Method.GET,
                        head.uriPath(),
                        head.query(),
                        head.fragment()));
            } else if (method != Method.GET) {
                res.header(HeaderNames.ALLOW, PAGE_METHODS);
                refuse(
                        req,
                        res,
                        Status.METHOD_NOT_ALLOWED_405,
                        text("method not allowed: " + page.get() + " answers GET and HEAD"));
                return;
            }
        } else if (explain && path.equals(EXPLAIN)) {
            if (method != Method.POST) {
                res.header(HeaderNames.ALLOW, "POST");
                refuse(
                        req,
                        res,
                        Status.METHOD_NOT_ALLOWED_405,
                        new Answer(true, ApiError.METHOD_NOT_ALLOWED.body(ErrorShape.OPENAI)));
                return;
            }
        } else {
            refuse(
                    req,
                    res,
                    Status.NOT_FOUND_404,
                    text("not found: the admin port serves GET /metrics, " + "GET /health/live, GET /health/ready"
                            + (explain ? " and POST " + EXPLAIN : "")));
            return;
        }
        chain.proceed();
    }

    /** The page {@code path} names ({@code /metrics} for each of its scopes), or empty when it names none. */
    private static Optional<String> page(String path) {
        if (path.equals("/metrics") || path.startsWith("/metrics/")) {
            return Optional.of("/metrics");
        }
        return path.equals("/health/live") || path.equals("/health/ready") ? Optional.of(path) : Optional.empty();
    }

    /** An answer: its content type and text. */
    private record Answer(boolean json, String body) {}

    private static Answer text(String line) {
        return new Answer(false, line + "\n");
    }

    /** Answers {@code answer} unread; a request with a body then loses its connection, its body drained first. */
    private static void refuse(RoutingRequest req, RoutingResponse res, Status status, Answer answer) {
        boolean unread = req.content().hasEntity();
        res.status(status).header(HeaderValues.CACHE_NO_CACHE);
        res.headers().contentType(answer.json() ? MediaTypes.APPLICATION_JSON : MediaTypes.TEXT_PLAIN);
        if (unread) {
            res.header(HeaderValues.CONNECTION_CLOSE);
        }
        res.send(answer.body());
        if (unread) {
            BoundedBody.linger(req);
            throw new CloseConnectionException("admin request refused before reading its body: " + status.code());
        }
    }
}
