package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * {@code POST /route/explain?path=…[&method=…]} on the admin port: the raw client body in, the {@link RouteExplainer}'s
 * JSON out. The body is bounded by {@code server.max_body_bytes}, as a client's is; a larger or unreadable one answers
 * 400 and closes the connection (the rest of it is never read as a next request).
 *
 * <p>Thread-safe: stateless.
 */
public final class ExplainHandler implements Handler {
    private final RouteExplainer explainer;
    private final LongSupplier maxBodyBytes;

    /** A handler answering with {@code explainer}, bodies bounded by {@code maxBodyBytes} (read per request). */
    public ExplainHandler(RouteExplainer explainer, LongSupplier maxBodyBytes) {
        this.explainer = requireNonNull(explainer, "explainer");
        this.maxBodyBytes = requireNonNull(maxBodyBytes, "maxBodyBytes");
    }

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        long max = maxBodyBytes.getAsLong();
        byte[] body;
        try (InputStream in = request.content().inputStream()) {
            body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, max + 1));
        } catch (IOException | UncheckedIOException e) {
            throw closing(request, response, RouteExplainer.invalid("body_unreadable", "The body could not be read."));
        }
        if (body.length > max) {
            throw closing(
                    request,
                    response,
                    RouteExplainer.invalid(
                            "body_too_large", "The body is larger than max_body_bytes (" + max + " bytes)."));
        }
        Optional<String> path = parameter(request, "path");
        RouteExplainer.Answer answer = path.isEmpty()
                ? RouteExplainer.invalid(
                        "missing_path", "Name the path to explain: POST /route/explain?path=/v1/chat/completions")
                : explainer.explain(path.get(), parameter(request, "method").orElse("POST"), body);
        send(response, answer);
    }

    private static Optional<String> parameter(ServerRequest request, String name) {
        return request.query().contains(name) ? Optional.of(request.query().get(name)) : Optional.empty();
    }

    private static void send(ServerResponse response, RouteExplainer.Answer answer) {
        response.status(Status.create(answer.status()))
                .header(HeaderValues.CACHE_NO_CACHE)
                .headers()
                .contentType(MediaTypes.APPLICATION_JSON);
        response.send(answer.json());
    }

    private static CloseConnectionException closing(
            ServerRequest request, ServerResponse response, RouteExplainer.Answer answer) {
        response.header(HeaderValues.CONNECTION_CLOSE);
        send(response, answer);
        BoundedBody.linger(request);
        return new CloseConnectionException("explain body refused");
    }
}
