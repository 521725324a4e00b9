package grid.gateway.app.observe;

import io.helidon.common.media.type.MediaType;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Optional;

/**
 * The formats {@code /metrics} (each of its scopes too) is served in, as a scraper reads them from its
 * {@code Content-Type}:
 *
 * <pre>
 *   Accept prefers text/plain, or none         text/plain; version=0.0.4; charset=utf-8 (Prometheus text)
 *   Accept prefers application/openmetrics-text application/openmetrics-text; version=1.0.0; charset=utf-8
 *   Accept prefers application/json, or        406, saying what is served
 *   admits neither text format
 * </pre>
 *
 * <p>The page ({@link MetricsPage}) is written with the chosen format's full media type: the {@code version} says
 * which exposition format it is in, the charset that its label values (cluster names) are UTF-8 (Helidon 4.5's own page
 * says the bare media type). JSON is refused: Helidon's JSON formatter throws on a gauge's NaN, which several of the
 * gateway's gauges report while unknown, so the page would be a 500 and a logged stack trace; an {@code Accept} that
 * admits no format the page has ({@code application/xml}) is refused with the same text, where Helidon's page answers
 * 406 with no content.
 *
 * <p>Thread-safe: stateless.
 */
final class ExpositionFormats implements Filter {
    /** The one instance. */
    static final ExpositionFormats INSTANCE = new ExpositionFormats();

    /** The Prometheus text format's media type (exposition format 0.0.4). */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    /** The OpenMetrics text format's media type (OpenMetrics 1.0.0). */
    static final String OPENMETRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private ExpositionFormats() {}

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String path = req.path().path();
        if (!(path.equals("/metrics") || path.startsWith("/metrics/"))
                || req.prologue().method() != Method.GET) {
            chain.proceed();
            return;
        }
        Optional<MediaType> best = req.headers()
                .bestAccepted(
                        MediaTypes.TEXT_PLAIN, MediaTypes.APPLICATION_OPENMETRICS_TEXT, MediaTypes.APPLICATION_JSON);
        if (best.isEmpty() || best.get().equals(MediaTypes.APPLICATION_JSON)) {
            res.status(Status.NOT_ACCEPTABLE_406).header(HeaderValues.CACHE_NO_CACHE);
            res.headers().contentType(MediaTypes.TEXT_PLAIN);
            res.send("not acceptable: /metrics is served as text/plain (Prometheus 0.0.4) or"
                    + " application/openmetrics-text\n");
            return;
        }
        chain.proceed();
    }
}
