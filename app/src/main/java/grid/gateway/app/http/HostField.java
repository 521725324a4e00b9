package grid.gateway.app.http;

import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.HostValidator;
import io.helidon.http.HttpPrologue;
import io.helidon.http.RequestException;
import io.helidon.http.Status;
import io.helidon.webserver.http.DirectTransportRequest;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The one check of a request's {@code Host} on both listeners (RFC 9112 §3.2, RFC 3986 §3.2.2): an HTTP/1.1 request
 * has exactly one, not empty; a {@code Host} sent (HTTP/1.0 on the admin listener need not send one) is a host, read
 * by Helidon's own check ({@link HostValidator}: a registered name, an IPv4 address, an IP literal in brackets), and
 * an optional port of digits only. Anything else is 400, the connection closed (ParseRefusal answers it).
 *
 * <p>Both listeners leave Helidon 4.5's full check of {@code Host} off ({@code validateRequestHostHeader(false)}) and
 * run this one from their receive listener: Helidon's full check reads the port with {@code Integer.parseInt}, which
 * takes a sign ({@code gw:-1}, {@code gw:+80}), and requires the field HTTP/1.0 need not send. Helidon's partial check
 * still runs first (a port must be an {@code int}), so a {@code Host} with an empty port ({@code gw:}) is refused on
 * both listeners before this check (docs/decisions.md).
 *
 * <p>Stateless.
 */
final class HostField {
    private HostField() {}

    /**
     * Checks the {@code Host} of a request whose head is {@code headers}; {@code http10} when its line named HTTP/1.0;
     * {@code prologue}, when known, names the request in the refusal (so that it answers in its API's shape).
     */
    static void check(boolean http10, Headers headers, @Nullable HttpPrologue prologue) {
        List<String> hosts = headers.all(HeaderNames.HOST, List::of);
        if (hosts.size() > 1) {
            throw refusal("Only a single Host header is allowed in request", prologue, headers);
        }
        if (!http10 && (hosts.isEmpty() || hosts.getFirst().isEmpty())) {
            throw refusal("An HTTP/1.1 request needs a Host header that is not empty", prologue, headers);
        }
        if (!hosts.isEmpty() && !hosts.getFirst().isEmpty() && !validHost(hosts.getFirst())) {
            throw refusal("The Host header is not a host and an optional port", prologue, headers);
        }
    }

    /**
     * Whether {@code value} is {@code uri-host [ ":" port ]} (RFC 9112 §3.2, RFC 3986 §3.2.2): a registered name or an
     * IPv4 address, or an IP literal in brackets, as Helidon's full check of {@code Host} reads them; a port of digits.
     */
    static boolean validHost(String value) {
        int portAt = value.startsWith("[") ? value.indexOf(']') + 1 : value.lastIndexOf(':');
        if (portAt <= 0 && value.startsWith("[")) {
            return false;
        }
        String host = portAt < 0 ? value : value.substring(0, portAt);
        String rest = portAt < 0 ? "" : value.substring(portAt);
        if (!rest.isEmpty() && !(rest.charAt(0) == ':' && rest.chars().skip(1).allMatch(c -> c >= '0' && c <= '9'))) {
            return false;
        }
        try {
            HostValidator.validate(host);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** A 400 refusal saying {@code message}, the connection not kept. */
    static RequestException refusal(String message, @Nullable HttpPrologue prologue, Headers headers) {
        return RequestException.builder()
                .type(DirectHandler.EventType.BAD_REQUEST)
                .status(Status.BAD_REQUEST_400)
                .request(
                        prologue == null
                                ? DirectTransportRequest.create("HTTP/1.1", "", "")
                                : DirectTransportRequest.create(prologue, headers))
                .setKeepAlive(false)
                .message(message)
                .build();
    }
}
