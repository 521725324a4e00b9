package grid.gateway.app.access;

import grid.gateway.app.config.GatewaySettings.AccessLogFormat;
import grid.gateway.routing.time.MonotonicClock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The request id and access line of a request Helidon's parser refused before routing (answered by the gateway's
 * direct handler, which {@link AccessLog}, a routing filter, never sees): the client's {@code X-Request-Id} when
 * well-formed, else one made for it, and with {@code gateway.access_log: json} one line, {@code end} {@code refused},
 * so that a client's malformed requests are in the access log as every other answer is.
 *
 * <p>Thread-safe: each call builds its own record.
 */
public final class RefusedHeads {
    private final Supplier<AccessLogFormat> format;
    private final AccessLogParts parts;
    private final MonotonicClock clock;
    private final AccessLine line = new AccessLine();

    /**
     * Writes to {@code parts}' sink while {@code format} says {@code json}.
     *
     * @param format {@code gateway.access_log} of the config in force
     * @param parts sink, id source and wall clock
     * @param clock times the request (a refused head's line says 0 ms: it is answered as it is read)
     */
    public RefusedHeads(Supplier<AccessLogFormat> format, AccessLogParts parts, MonotonicClock clock) {
        this.format = format;
        this.parts = parts;
        this.clock = clock;
    }

    /** The request id of a refused head: {@code clientId} (its {@code X-Request-Id}) when well-formed, else a new one. */
    public String requestId(@Nullable String clientId) {
        return RequestIds.choose(clientId, parts.requestIds());
    }

    /**
     * A refused request as its line gives it.
     *
     * @param requestId its {@link #requestId}
     * @param method the method as parsed ("" when the request line was not)
     * @param loggedPath the path as the access log gives it (stored ids replaced), or null when not read
     * @param client the client's address
     */
    public record Head(
            String requestId, String method, @Nullable String loggedPath, String client) {}

    /** Writes the line of {@code head}, answered {@code status} with {@code bytesOut} body bytes, when the log is on. */
    public void write(Head head, int status, long bytesOut) {
        if (format.get() != AccessLogFormat.JSON) {
            return;
        }
        AccessRecord record = new AccessRecord(head.requestId(), head.method(), clock.nanoTime())
                .logged(parts.wallClock().instant(), head.client());
        record.path = head.loggedPath();
        line.write(record, new AccessLine.Finish(status, bytesOut, 0, Ending.REFUSED), parts.sink());
    }
}
