package grid.gateway.app.http;

import grid.gateway.app.access.RequestIds;
import grid.gateway.app.endpoint.ErrorShape;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes the gateway's own error answers: status, JSON body in the API's shape, {@code Retry-After: 5} on 503. The
 * body carries the request id the access log filter already put on the answer's {@code X-Request-Id}.
 *
 * <p>Stateless and thread-safe.
 */
public final class ErrorAnswers {
    private ErrorAnswers() {}

    /** Answers {@code error} in {@code shape}. */
    public static void send(ServerResponse response, ErrorShape shape, ApiError error) {
        response.status(Status.create(error.status()));
        response.header(HeaderValues.CONTENT_TYPE_JSON);
        if (error.retries()) {
            response.header(HeaderNames.RETRY_AFTER, Integer.toString(ApiError.RETRY_AFTER_SECONDS));
        }
        response.send(
                error.body(shape, response.headers().first(RequestIds.HEADER)).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Answers {@code error} with {@code Connection: close}: the request's body was not read to its end (or could not
     * be), so the connection cannot carry another request. A client already gone is not an error here.
     */
    public static void sendClosing(ServerResponse response, ErrorShape shape, ApiError error) {
        response.header(HeaderValues.CONNECTION_CLOSE);
        try {
            send(response, shape, error);
        } catch (UncheckedIOException gone) {
            // The client went away: nobody to answer, and the caller closes the connection anyway.
        }
    }
}
