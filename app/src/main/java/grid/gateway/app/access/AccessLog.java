package grid.gateway.app.access;

import grid.gateway.app.config.GatewaySettings.AccessLogFormat;
import grid.gateway.app.endpoint.RedactedPath;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Gives every client request its id and, with {@code gateway.access_log: json}, writes its access log line when it
 * ends (docs/operations.md, "Access log and request ids").
 *
 * <pre>
 *   arrival   id = the client's X-Request-Id when well-formed, else a new one; X-Request-Id: id on the answer
 *             (set before the handler runs, so every answer has it, the gateway's own errors included);
 *             an AccessRecord in the request's context
 *   handler   ProxyHandler and Forwarding fill the record in
 *   end       one line to the sink, also when the handler threw (the exception goes on to Helidon)
 * </pre>
 *
 * <p>{@code access_log} is read per request, so a reload turns it on or off at once. Off, no line is built: the id is
 * still taken or made, sent and returned, and a request whose client left is still counted ({@link ClientLeft}).
 *
 * <p>Thread-safe: per-request state lives in the record, on the request's thread.
 */
public final class AccessLog implements Filter {
    private static final System.Logger LOG = System.getLogger(AccessLog.class.getName());

    private final Supplier<AccessLogFormat> format;
    private final AccessLogParts parts;
    private final MonotonicClock clock;
    private final Function<RoutingRequest, String> clientAddress;
    private final ClientLeft clientLeft;
    private final AccessLine line = new AccessLine();

    /**
     * A filter writing to {@code parts}' sink while {@code format} says {@code json}.
     *
     * @param format {@code gateway.access_log} of the config in force
     * @param parts sink, id source and wall clock
     * @param clock times the request
     * @param clientAddress the client's address as the proxy forwards it
     */
    public AccessLog(
            Supplier<AccessLogFormat> format,
            AccessLogParts parts,
            MonotonicClock clock,
            Function<RoutingRequest, String> clientAddress) {
        this(format, parts, clock, clientAddress, answerStarted -> {});
    }

    /**
     * A filter as {@link #AccessLog(Supplier, AccessLogParts, MonotonicClock, Function)} that also tells {@code
     * clientLeft} of each request that ends {@link Ending#CLIENT_GONE}, whether or not lines are written.
     */
    public AccessLog(
            Supplier<AccessLogFormat> format,
            AccessLogParts parts,
            MonotonicClock clock,
            Function<RoutingRequest, String> clientAddress,
            ClientLeft clientLeft) {
        this.format = format;
        this.parts = parts;
        this.clock = clock;
        this.clientAddress = clientAddress;
        this.clientLeft = clientLeft;
    }

    /** Told of each request whose client left before its answer ended. */
    @FunctionalInterface
    public interface ClientLeft {
        /**
         * A request ended {@code client_gone}; {@code answerStarted}: some of its answer had gone out (its access line
         * has a status), else none had.
         */
        void left(boolean answerStarted);
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String id = RequestIds.choose(req.headers().first(RequestIds.HEADER).orElse(null), parts.requestIds());
        res.header(RequestIds.HEADER, id);
        boolean logged = format.get() == AccessLogFormat.JSON;
        AccessRecord record = new AccessRecord(id, req.prologue().method().text(), clock.nanoTime());
        if (logged) {
            record.logged(parts.wallClock().instant(), clientAddress.apply(req));
        }
        AccessRecord.CURRENT.set(record);
        RuntimeException thrown = null;
        try {
            chain.proceed();
        } catch (RuntimeException e) {
            thrown = e;
            throw e;
        } finally {
            AccessRecord.CURRENT.remove();
            end(record, res, thrown, logged); // the outcome reads a shutdown's cut (AccessRecord.outcome)
        }
    }

    /** The id of a request answered outside this filter: {@code offered} (its X-Request-Id) when well-formed, else new. */
    public String requestId(@Nullable String offered) {
        return RequestIds.choose(offered, parts.requestIds());
    }

    /**
     * A client request answered before any routing, outside this filter: a head or framing Helidon's parser refused,
     * or HTTP/1.0 ({@code http.ParseRefusal}). With {@code access_log: json} its line is written as any refusal's:
     * the method and the path (without its query, redacted) as the request line gave them (null when it could not be
     * read), the client's address when known, the status and the error body's length, {@code end} {@code refused}.
     */
    public void unrouted(Unrouted request) {
        if (format.get() != AccessLogFormat.JSON) {
            return;
        }
        try {
            long now = clock.nanoTime();
            // A request line the parser could not read (over its limit) gives neither: null, not an empty text.
            String method = request.method();
            AccessRecord record = new AccessRecord(request.requestId(), method.isEmpty() ? null : method, now)
                    .logged(parts.wallClock().instant(), request.client());
            String target = request.target();
            int query = target.indexOf('?');
            record.path = target.isEmpty() ? null : RedactedPath.of(query < 0 ? target : target.substring(0, query));
            line.write(
                    record,
                    new AccessLine.Finish(
                            request.status(), "HEAD".equals(method) ? 0 : request.bytesOut(), 0, Ending.REFUSED),
                    parts.sink());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "access log line not written: " + e);
        }
    }

    /**
     * A request answered before routing: its id, its method and request target as the parser read them, the
     * client's address (null when not known), the status and body bytes of the answer.
     */
    public record Unrouted(
            String requestId,
            String method,
            String target,
            @Nullable String client,
            int status,
            long bytesOut) {}

    private void end(AccessRecord record, RoutingResponse res, @Nullable RuntimeException thrown, boolean logged) {
        try {
            AccessRecord.Outcome outcome = record.outcome(thrown, res);
            if (outcome.ending() == Ending.CLIENT_GONE) {
                clientLeft.left(!outcome.nothingSent());
            }
            if (!logged) {
                return;
            }
            AccessLine.Finish finish = new AccessLine.Finish(
                    outcome.nothingSent() ? -1 : res.status().code(),
                    outcome.bytesOut(),
                    clock.nanoTime() - record.startNanos,
                    outcome.ending());
            line.write(record, finish, parts.sink());
        } catch (RuntimeException e) {
            // The request is over; a line that cannot be built (or counted) must not turn its end into an error.
            LOG.log(System.Logger.Level.WARNING, "access log line not written: " + e);
        }
    }
}
