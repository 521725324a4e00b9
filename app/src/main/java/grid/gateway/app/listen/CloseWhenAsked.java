package grid.gateway.app.listen;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * Closes a connection after an answer that ends it: the client sent {@code Connection: close}, or the answer says
 * {@code Connection: close} (RFC 9112 §9.6: the connection is not used for further requests after either).
 *
 * <p>Helidon 4.5 marks its answer {@code Connection: close} when the request asked for it, but keeps reading the
 * connection afterwards, so a request the client pipelined behind it was served. Ending the connection (Helidon's
 * {@code CloseConnectionException}) once the answer is complete drops whatever follows unread.
 *
 * <p>Thread-safe: stateless.
 */
public final class CloseWhenAsked implements Filter {
    /** The one instance. */
    public static final CloseWhenAsked INSTANCE = new CloseWhenAsked();

    private CloseWhenAsked() {}

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        chain.proceed();
        closeIfAsked(req, res);
    }

    /** Ends the connection of {@code req} when either side asked to close it and the answer is complete. */
    public static void closeIfAsked(ServerRequest req, ServerResponse res) {
        boolean asked = req.headers().containsToken(HeaderValues.CONNECTION_CLOSE)
                || res.headers().contains(HeaderNames.CONNECTION)
                        && res.headers().get(HeaderNames.CONNECTION).allValues().stream()
                                .anyMatch(value -> value.equalsIgnoreCase("close"));
        if (asked && res.isSent()) {
            throw new CloseConnectionException("Connection: close");
        }
    }
}
