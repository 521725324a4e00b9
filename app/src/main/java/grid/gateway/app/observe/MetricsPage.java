package grid.gateway.app.observe;

import static java.util.Objects.requireNonNull;

import io.helidon.common.media.type.MediaType;
import io.helidon.common.media.type.MediaTypes;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.MeterRegistryFormatter;
import io.helidon.metrics.api.MetricsConfig;
import io.helidon.metrics.api.SystemTagsManager;
import io.helidon.metrics.spi.MeterRegistryFormatterProvider;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Answers every {@code GET} of {@code /metrics} and the paths below it, and decides each answer itself: a page of the
 * meters selected, or 404 in text saying what was asked and what is served. Helidon 4.5's metrics page (its
 * {@code MetricsFeature}) answered a selection that matched nothing ({@code ?name=typo}, {@code ?scope=nosuch},
 * {@code /metrics/base} with no base meters) 404 with no content and no type, and a path it does not route
 * ({@code /metrics/nosuch}) 404 {@code Endpoint not found}; its routing of the paths below {@code /metrics} is its own
 * ({@code /metrics//application} the application scope, {@code /metrics/application/} not found).
 *
 * <pre>
 *   /metrics                      every meter; ?scope= and ?name= (each repeatable) select, as Helidon's page does
 *   /metrics/&lt;scope&gt;              the meters of one scope (base, vendor, application); ?name= selects within it
 *   /metrics/&lt;scope&gt;/&lt;name&gt;       the meters named so in that scope
 *   a selection that matches none 404 naming the selection and the scopes the registry has
 *   any other path below /metrics 404 naming the forms above
 *   any other query parameter     ignored (docs/decisions.md)
 * </pre>
 *
 * <p>Empty path segments are skipped ({@code /metrics/} is {@code /metrics}). The page is written by the same
 * formatter Helidon's page uses (its {@link MeterRegistryFormatterProvider}s), in the format {@link ExpositionFormats}
 * chose, with that format's full media type. Methods and other paths were decided before ({@link AdminMethods}: HEAD
 * is answered as GET without content).
 *
 * <p>Thread-safe: immutable; the registry and formatters are.
 */
final class MetricsPage implements Handler {
    private static final String PAGE = "/metrics";
    /** The type of the page's refusals, as of the health pages' answers. */
    private static final String TEXT = "text/plain; charset=UTF-8";

    /** How a meter is named, said with a name that matched none: the series on the page carry suffixes. */
    private static final String NAMES = " (a meter is named as its series on the page, without the _total, _bucket,"
            + " _count, _sum or _max the page adds)";

    private static final String FORMS = "/metrics serves /metrics (?scope= and ?name= select),"
            + " /metrics/<scope> and /metrics/<scope>/<name>, scope one of " + String.join(", ", scopes());

    private final MeterRegistry registry;
    private final List<MeterRegistryFormatterProvider> formatters;
    private final MetricsConfig config = MetricsConfig.create();

    /** The page of {@code registry}. */
    MetricsPage(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
        List<MeterRegistryFormatterProvider> found = new ArrayList<>();
        ServiceLoader.load(MeterRegistryFormatterProvider.class).forEach(found::add);
        this.formatters = List.copyOf(found);
    }

    /**
     * Routes {@code GET /metrics} and every path below it to the page of {@code registry}, ahead of the routes of
     * Helidon's metrics page (its feature's routes come after the gateway's); Helidon's filters still run first, so its
     * vendor-scope {@code requests_count_total} counts the page's requests.
     */
    static void route(HttpRouting.Builder routing, MeterRegistry registry) {
        MetricsPage page = new MetricsPage(registry);
        routing.get(PAGE, page).get(PAGE + "/*", page);
    }

    @Override
    public void handle(ServerRequest req, ServerResponse res) {
        String path = req.path().path();
        List<String> segments = new ArrayList<>();
        for (String segment : path.substring(PAGE.length()).split("/")) {
            if (!segment.isEmpty()) {
                segments.add(segment);
            }
        }
        if (segments.size() > 2 || (!segments.isEmpty() && !scopes().contains(segments.getFirst()))) {
            notFound(res, "not found: " + shown(List.of(path)) + ": " + FORMS);
            return;
        }
        List<String> scopes = segments.isEmpty() ? req.query().all("scope", List::of) : List.of(segments.getFirst());
        List<String> names =
                segments.size() == 2 ? List.of(segments.get(1)) : req.query().all("name", List::of);
        boolean openMetrics = req.headers()
                .bestAccepted(MediaTypes.TEXT_PLAIN, MediaTypes.APPLICATION_OPENMETRICS_TEXT)
                .filter(MediaTypes.APPLICATION_OPENMETRICS_TEXT::equals)
                .isPresent();
        MediaType format = openMetrics ? MediaTypes.APPLICATION_OPENMETRICS_TEXT : MediaTypes.TEXT_PLAIN;
        Optional<Object> page = format(format, scopes, names);
        if (page.isEmpty()) {
            notFound(
                    res,
                    "not found: no meter matches" + (scopes.isEmpty() ? "" : " scope " + shown(scopes))
                            + (names.isEmpty() ? "" : " name " + shown(names) + NAMES) + " (scopes with meters: "
                            + String.join(", ", new TreeSet<>(registryScopes())) + "); " + FORMS);
            return;
        }
        res.status(Status.OK_200)
                .header(HeaderValues.CACHE_NO_CACHE)
                .header(HeaderValues.X_CONTENT_TYPE_OPTIONS_NOSNIFF)
                .header(
                        HeaderNames.CONTENT_TYPE,
                        openMetrics ? ExpositionFormats.OPENMETRICS_TEXT : ExpositionFormats.PROMETHEUS_TEXT);
        res.send(page.get().toString());
    }

    /** The page of the meters {@code scopes} and {@code names} select (none: all), empty when they select none. */
    private Optional<Object> format(MediaType format, List<String> scopes, List<String> names) {
        Optional<String> scopeTag = SystemTagsManager.instance().scopeTagName();
        for (MeterRegistryFormatterProvider provider : formatters) {
            Optional<MeterRegistryFormatter> formatter =
                    provider.formatter(format, config, registry, scopeTag, scopes, names);
            if (formatter.isPresent()) {
                return formatter.get().format();
            }
        }
        throw new IllegalStateException("no metrics formatter for " + format.text() + " on the class path");
    }

    private List<String> registryScopes() {
        List<String> scopes = new ArrayList<>();
        registry.scopes().forEach(scopes::add);
        return scopes;
    }

    private static List<String> scopes() {
        return List.copyOf(new TreeSet<>(Meter.Scope.BUILT_IN_SCOPES));
    }

    /**
     * {@code values} as a 404 says them: each in quotes, what the client sent echoed with every control character
     * (a terminal's escape sequences included) shown as {@code ?}.
     */
    private static String shown(List<String> values) {
        List<String> quoted = new ArrayList<>();
        for (String value : values) {
            StringBuilder text = new StringBuilder(value.length() + 2).append('"');
            value.codePoints().forEach(c -> text.appendCodePoint(Character.isISOControl(c) ? '?' : c));
            quoted.add(text.append('"').toString());
        }
        return String.join(", ", quoted);
    }

    private static void notFound(ServerResponse res, String text) {
        res.status(Status.NOT_FOUND_404).header(HeaderValues.CACHE_NO_CACHE);
        res.headers().set(HeaderNames.CONTENT_TYPE, TEXT);
        res.send(text + "\n");
    }
}
