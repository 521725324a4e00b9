package grid.gateway.app.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.RequestException;
import io.helidon.http.WritableHeaders;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.0 on the admin listener, which serves it (docs/decisions.md) where the client listener refuses it (505):
 * health checkers send it ({@code option httpchk} of HAProxy, whose checks are HTTP/1.0 unless told otherwise,
 * keepalived, {@code check_http}, simple load balancers), and a readiness probe answered 505 takes the replica out.
 *
 * <pre>
 *   request line "… HTTP/1.0"  ──{@link #readAsHttp11}──> parsed by Helidon 4.5 (which parses HTTP/1.1 only) as 1.1,
 *                                                        remembered as 1.0 for the request
 *   its head                   ──{@link #check}──> Host optional (at most one); Transfer-Encoding refused (HTTP/1.0
 *                                                 has none: its framing is faulty, RFC 9112 §6.1); Expect ignored
 *                                                 (RFC 9110 §10.1.1: no 100 to an HTTP/1.0 client)
 *   its answer                 Content-Length (every admin answer is written whole) and Connection: close, the
 *                              connection closed after it (AdminRoutes)
 * </pre>
 *
 * <p>Helidon's full check of {@code Host} requires the field, which HTTP/1.0 need not send, so the admin listener's
 * parser makes only its partial check (a port must be a number), and {@link #check} keeps what RFC 9112 §3.2
 * requires ({@link HostField}, the client listener's check too): in HTTP/1.1 exactly one {@code Host}, not empty; in
 * either version a {@code Host} sent is a host and an optional port of digits; else 400.
 *
 * <p>Stateless.
 */
final class AdminHttp10 {
    private static final byte[] HTTP_10 = " HTTP/1.0".getBytes(StandardCharsets.US_ASCII);

    private AdminHttp10() {}

    /**
     * Whether {@code line}, a request line as read, names HTTP/1.0; if so its version now reads HTTP/1.1, so that
     * Helidon's parser takes it.
     */
    static boolean readAsHttp11(byte[] line) {
        if (line.length <= HTTP_10.length || line[0] == ' ') {
            return false;
        }
        int from = line.length - HTTP_10.length;
        for (int i = 0; i < HTTP_10.length; i++) {
            if (line[from + i] != HTTP_10[i]) {
                return false;
            }
        }
        line[line.length - 1] = '1';
        return true;
    }

    /**
     * Checks the head of a request on the admin listener, {@code http10} when its line named HTTP/1.0, as Helidon's
     * full {@code Host} check would and as HTTP/1.0 needs; a refusal is answered 400 and closed (ParseRefusal).
     */
    static void check(boolean http10, Headers headers) {
        HostField.check(http10, headers, null);
        if (http10 && headers.contains(HeaderNames.TRANSFER_ENCODING)) {
            throw refusal("HTTP/1.0 has no Transfer-Encoding");
        }
        if (http10 && headers instanceof WritableHeaders<?> writable) {
            writable.remove(HeaderNames.EXPECT);
        }
    }

    private static RequestException refusal(String message) {
        return HostField.refusal(message, null, WritableHeaders.create());
    }
}
