package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The headers every answer of vLLM's server carries, as recorded ({@code testdata/vllm/}): {@code server: uvicorn},
 * {@code date} as an IMF-fixdate (two-digit day), and {@code vary: Origin} from its CORS middleware, which the
 * answers to engine-side validation errors lack ({@link #withoutVary}).
 *
 * <p>Thread-safe (immutable).
 */
final class ServerHeaders {
    /** RFC 9110's IMF-fixdate: {@code Sun, 06 Dec 2026 10:30:15 GMT}. */
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private final InstantSource wallClock;

    ServerHeaders(InstantSource wallClock) {
        this.wallClock = requireNonNull(wallClock, "wallClock");
    }

    /** Sets the headers on {@code response} before anything else is written. */
    void set(ServerResponse response) {
        response.header(HeaderNames.DATE, IMF_FIXDATE.format(wallClock.instant()));
        response.header(HeaderNames.SERVER, "uvicorn");
        response.header(HeaderNames.VARY, "Origin");
    }

    /** Removes {@code vary}: vLLM's answers to a prompt or output limit beyond the context carry none. */
    static void withoutVary(ServerResponse response) {
        response.headers().remove(HeaderNames.VARY);
    }
}
