package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.access.AccessLog;
import grid.gateway.app.access.RequestIds;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.endpoint.ErrorShape;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.observe.ProxyEvents;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Answers, in the API's error shape, a request Helidon 4.5's HTTP/1 parser refuses itself before any routing, which
 * Helidon answers with its status and an empty body (an SDK reports that as an unexplained failure); this keeps the
 * status and says what was wrong in the shape of the API the target names. The connection is closed: the bytes after
 * a head that could not be read cannot be trusted as a next request.
 *
 * <ul>
 *   <li>A malformed head (a folded line, a bare LF, a control byte, a space before a colon, no or two {@code Host}
 *       fields) or framing (both {@code Content-Length} and {@code Transfer-Encoding}, a coding other than
 *       {@code chunked} alone, a {@code Content-Length} that is not one number), a request line or head over its
 *       limit: 400, 414 or 501, counted as {@code malformed_request}.
 *   <li>HTTP/1.0: 505, saying what to send instead, counted as {@code http_version}. Refused rather than served:
 *       every streamed answer (server-sent events) is relayed with chunked transfer coding, which HTTP/1.0 does not
 *       have (a 1.0 client would need each stream delimited by closing the connection), and HTTP/1.0's keep-alive is
 *       another protocol; no OpenAI or Anthropic SDK sends HTTP/1.0. A proxy in front must speak HTTP/1.1 to the
 *       gateway: nginx's {@code proxy_http_version} defaults to 1.0, so set {@code proxy_http_version 1.1;} (which
 *       upstream keep-alive needs anyway).
 * </ul>
 *
 * <p>Thread-safe: stateless.
 */
public final class ParseRefusal implements DirectHandler {
    private static final System.Logger LOG = System.getLogger(ParseRefusal.class.getName());
    /** The shortest time between two WARNING lines of the gateway's own failures: 10 s. */
    static final long WARNING_EVERY_NANOS = 10_000_000_000L;
    /** The statuses Helidon's HTTP/1 parser refuses a head or its framing with. */
    private static final Set<Integer> PARSER_STATUSES = Set.of(400, 414, 501);

    /** The error shape of a refused request, by its target. */
    private final Function<String, ErrorShape> shapes;
    /** Counts a refusal, by why. */
    private final Consumer<InboundRefusal> counted;
    /** The client listener's access log, which gives the refusal its id and logs it; null on the admin listener. */
    private final @Nullable AccessLog access;
    /** The WARNING lines of the gateway's own failures, rate-limited. */
    private final Warnings warnings;

    /** The client listener's, its WARNING lines rate-limited on {@code clock}. */
    ParseRefusal(EndpointTable endpoints, ProxyEvents events, AccessLog access, MonotonicClock clock) {
        requireNonNull(endpoints, "endpoints");
        requireNonNull(events, "events");
        this.shapes = target -> shape(endpoints, target);
        this.counted = events::refused;
        this.access = requireNonNull(access, "access");
        this.warnings = new Warnings("client", clock);
    }

    private ParseRefusal(Function<String, ErrorShape> shapes, Consumer<InboundRefusal> counted, MonotonicClock clock) {
        this.shapes = shapes;
        this.counted = counted;
        this.access = null;
        this.warnings = new Warnings("admin", clock);
    }

    /**
     * The admin listener's: the same statuses, in the OpenAI error shape its {@code POST /route/explain} answers
     * errors in, the connection closed; not counted in {@code grid_requests_refused_total}, which counts clients'
     * requests. Its WARNING lines are rate-limited on {@code clock}.
     */
    public static DirectHandler onAdmin(MonotonicClock clock) {
        DirectHandler refusal = new ParseRefusal(target -> ErrorShape.OPENAI, reason -> {}, clock);
        // The admin listener decides its answers before Helidon's routing (AdminMethods, MetricsPage); anything else
        // Helidon would answer itself (a path its routing does not find, a status a handler threw) gets a text body
        // of the gateway's, never Helidon's message, which can name its own classes or be empty.
        return (request, eventType, status, headers, message) -> eventType == EventType.HTTP_VERSION_NOT_SUPPORTED
                        || eventType == EventType.INTERNAL_ERROR
                        || PARSER_STATUSES.contains(status.code())
                ? refusal.handle(request, eventType, status, headers, message)
                : adminAnswer(request, status, headers);
    }

    /** Text the admin listener says with a {@code status} Helidon would answer itself; the connection closed. */
    static TransportResponse adminAnswer(TransportRequest request, Status status, ServerResponseHeaders headers) {
        HandlerFailure.take();
        String text = status.code() + " " + status.reasonPhrase()
                + (status.code() == Status.NOT_FOUND_404.code()
                        ? ": the admin port serves GET /metrics, GET /health/live, GET /health/ready and"
                                + " POST /route/explain"
                        : "")
                + "\n";
        headers.set(HeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8");
        headers.set(HeaderValues.CACHE_NO_CACHE);
        headers.set(HeaderValues.CONNECTION_CLOSE);
        if (request.method().equals("HEAD")) {
            RequestLineKeeper.answeringHead();
        }
        return TransportResponse.builder()
                .status(status)
                .headers(headers)
                .keepAlive(false)
                .entity(text)
                .build();
    }

    @Override
    public TransportResponse handle(
            TransportRequest request,
            EventType eventType,
            Status defaultStatus,
            ServerResponseHeaders headers,
            String message) {
        // Taken for every event, so that what a handler threw before a status exception's answer is never a later
        // failure's cause.
        Throwable thrown = HandlerFailure.take();
        if (eventType == EventType.INTERNAL_ERROR) {
            return unreadableHead(request, headers, thrown);
        }
        if (eventType == EventType.HTTP_VERSION_NOT_SUPPORTED) {
            counted.accept(InboundRefusal.HTTP_VERSION);
            return refusal(request, Status.HTTP_VERSION_NOT_SUPPORTED_505, ApiError.HTTP_VERSION, headers);
        }
        if (defaultStatus.code() < 400) {
            // Not a refusal: nothing of the API's to say.
            return DirectHandler.defaultHandler().handle(request, eventType, defaultStatus, headers, message);
        }
        counted.accept(InboundRefusal.MALFORMED_REQUEST);
        ApiError error = switch (defaultStatus.code()) {
            case 414 -> ApiError.TARGET_TOO_LONG;
            case 501 -> ApiError.CODING_NOT_IMPLEMENTED;
            default -> ApiError.MALFORMED_REQUEST;
        };
        return refusal(request, defaultStatus, error, headers);
    }

    /**
     * What reaches Helidon 4.5's catch-all around an HTTP/1 connection's reading of a request, or its routing's around
     * a handler that threw (each an internal error to Helidon, which passes this handler no cause).
     *
     * <ul>
     *   <li>Bytes its parser fails on with an exception of its own rather than a refusal, a method that is not a token
     *       ({@code HTTP/1.1 200 OK} read as a request line), which Helidon alone answers 500 with an empty body and
     *       logs as a WARNING with a stack trace, are a malformed head: 400 in the API's shape, closed, counted as
     *       {@code malformed_request}, not logged.
     *   <li>The client's stream ending inside the request's fields arrives the same way (Helidon maps it to a quiet
     *       close only inside the request line): the client never finished a request, so the connection is closed
     *       without an answer, as after a cut request line (and as nginx and Envoy do).
     *   <li>Anything else is the gateway's own failure, not the client's: 500 in the API's shape with
     *       {@code Connection: close}, not counted as a refusal, and a WARNING naming the request, at most one every
     *       {@link #WARNING_EVERY_NANOS} on the injected clock (a client that can cause it must not flood the log),
     *       with how many were not logged.
     * </ul>
     */
    private TransportResponse unreadableHead(
            TransportRequest request, ServerResponseHeaders headers, @Nullable Throwable thrown) {
        if (RequestLineKeeper.clientStreamEnded()) {
            throw new CloseConnectionException("the client's stream ended inside a request's head");
        }
        if (RequestLineKeeper.unparsedMethod().isPresent()) {
            counted.accept(InboundRefusal.MALFORMED_REQUEST);
            return refusal(request, Status.BAD_REQUEST_400, ApiError.MALFORMED_REQUEST, headers);
        }
        warnings.warn(request.method() + " " + request.path(), thrown);
        return refusal(request, Status.INTERNAL_SERVER_ERROR_500, ApiError.INTERNAL_ERROR, headers);
    }

    private TransportResponse refusal(
            TransportRequest request, Status status, ApiError error, ServerResponseHeaders headers) {
        headers.set(HeaderValues.CONTENT_TYPE_JSON);
        // Said as well as done where Helidon closes; the routing's path to this handler (a handler that threw) keeps
        // the connection open, and the answer tells the client to close it.
        headers.set(HeaderValues.CONNECTION_CLOSE);
        AccessLog log = access;
        // A request line over its limit is refused unread (Helidon gives no method or target): its start names both.
        Optional<OverlongLine> overlong = OverlongLine.take();
        boolean unread = status.code() == 414 && request.path().isEmpty() && overlong.isPresent();
        ErrorShape shape = shapes.apply(unread ? overlong.get().path() : request.path());
        if ((unread ? overlong.get().method() : request.method()).equals("HEAD")) {
            RequestLineKeeper.answeringHead();
        }
        String body;
        if (log == null) {
            body = error.body(shape);
        } else {
            // A client request like any other: its id on the answer and in the body, and its access line.
            String id = log.requestId(request.headers().first(RequestIds.HEADER).orElse(null));
            headers.set(RequestIds.HEADER, id);
            body = error.body(shape, Optional.of(id));
            log.unrouted(new AccessLog.Unrouted(
                    id,
                    request.method(),
                    request.path(),
                    RequestLineKeeper.clientAddress(),
                    status.code(),
                    body.getBytes(StandardCharsets.UTF_8).length));
        }
        return TransportResponse.builder()
                .status(status)
                .headers(headers)
                .keepAlive(false)
                .entity(body)
                .build();
    }

    /** The error shape of the API {@code target} names; OpenAI's for anything the table cannot classify. */
    static ErrorShape shape(EndpointTable endpoints, String target) {
        int query = target.indexOf('?');
        try {
            return endpoints
                    .classify(query < 0 ? target : target.substring(0, query))
                    .endpoint()
                    .errors();
        } catch (RuntimeException unclassifiable) {
            return ErrorShape.OPENAI;
        }
    }

    /**
     * The WARNING lines of internal errors on one listener: at most one every {@link #WARNING_EVERY_NANOS}, each saying
     * how many were not logged since the last.
     */
    static final class Warnings {
        private final String listener;
        private final MonotonicClock clock;
        /** Guards the fields below. */
        private final Object lock = new Object();

        private boolean any;
        private long next;
        private long unlogged;

        Warnings(String listener, MonotonicClock clock) {
            this.listener = requireNonNull(listener, "listener");
            this.clock = requireNonNull(clock, "clock");
        }

        /**
         * Logs the failure of {@code request} (method and path), with {@code cause} when known, unless a line was
         * logged too recently.
         */
        void warn(String request, @Nullable Throwable cause) {
            long skipped;
            synchronized (lock) {
                long now = clock.nanoTime();
                if (any && now - next < 0) {
                    unlogged++;
                    return;
                }
                any = true;
                next = now + WARNING_EVERY_NANOS;
                skipped = unlogged;
                unlogged = 0;
            }
            String message = "internal error on the " + listener + " listener handling " + request + ": answered 500 ("
                    + (cause == null ? "Helidon passes no cause" : "the handler threw") + "; " + skipped
                    + " more not logged since the last such line)";
            if (cause == null) {
                LOG.log(System.Logger.Level.WARNING, message);
            } else {
                LOG.log(System.Logger.Level.WARNING, message, cause);
            }
        }
    }
}
