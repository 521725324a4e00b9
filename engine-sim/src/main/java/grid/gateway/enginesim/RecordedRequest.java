package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One request the simulator received, as it arrived (OkHttp MockWebServer's {@code RecordedRequest}).
 *
 * <p>Immutable.
 *
 * @param sequence the request's position among those this simulator recorded, from 0
 * @param method the method, such as {@code POST}
 * @param target the raw path and query, byte-exact as sent ({@code /v1/responses/resp_1?x=%2F})
 * @param headers every header, names in lower case, values in arrival order
 * @param body the body as UTF-8 text (a malformed sequence as U+FFFD); empty when there was none
 * @param bodyUtf8 whether the body's bytes are well-formed UTF-8
 * @param bytes the body's bytes as they arrived ({@link #bodyBytes()} gives a copy)
 */
public record RecordedRequest(
        int sequence,
        String method,
        String target,
        Map<String, List<String>> headers,
        String body,
        boolean bodyUtf8,
        byte[] bytes) {

    /** Validates and copies. */
    public RecordedRequest {
        requireNonNull(method, "method");
        requireNonNull(target, "target");
        headers = Map.copyOf(headers);
        requireNonNull(body, "body");
        bytes = bytes.clone();
    }

    /** The raw path without the query. */
    public String path() {
        int query = target.indexOf('?');
        return query < 0 ? target : target.substring(0, query);
    }

    /** The raw query without {@code ?}; empty when there is none. */
    public String query() {
        int query = target.indexOf('?');
        return query < 0 ? "" : target.substring(query + 1);
    }

    /** The first value of header {@code name} (any case). */
    public Optional<String> header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
    }

    /** A copy of the body's bytes as they arrived. */
    public byte[] bodyBytes() {
        return bytes.clone();
    }

    /** A copy of the body's bytes as they arrived. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RecordedRequest that
                && sequence == that.sequence
                && bodyUtf8 == that.bodyUtf8
                && method.equals(that.method)
                && target.equals(that.target)
                && headers.equals(that.headers)
                && body.equals(that.body)
                && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sequence, method, target, headers, body, bodyUtf8, Arrays.hashCode(bytes));
    }

    @Override
    public String toString() {
        return "RecordedRequest[" + sequence + " " + method + " " + target + ", " + body.length() + " chars]";
    }
}
