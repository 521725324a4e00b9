package grid.gateway.app.forward;

import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import java.util.Locale;

/**
 * What an upstream answer's {@code Content-Type} says its body is, read leniently: an engine may send any bytes there
 * (an empty value, {@code json}, a parameter without {@code =}), which Helidon's media type parser refuses with an
 * exception. Only the type and subtype before the first {@code ;} are looked at, in any case; the header itself is
 * relayed as sent.
 *
 * <p>Thread-safe (stateless).
 */
enum AnswerMediaType {
    /** {@code text/event-stream}: relayed event by event. */
    EVENTS,
    /** {@code application/json} or a {@code +json} type. */
    JSON,
    /** Anything else, or no {@code Content-Type}. */
    OTHER;

    /** The kind of the first {@code Content-Type} value of {@code headers}, never throwing. */
    static AnswerMediaType of(Headers headers) {
        if (!headers.contains(HeaderNames.CONTENT_TYPE)) {
            return OTHER;
        }
        String value = headers.get(HeaderNames.CONTENT_TYPE).get();
        int semicolon = value.indexOf(';');
        String type =
                (semicolon < 0 ? value : value.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
        if (type.equals("text/event-stream")) {
            return EVENTS;
        }
        if (type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"))) {
            return JSON;
        }
        return OTHER;
    }

    /**
     * Whether a tagged answer whose first body bytes are {@code bytes[0, count)} is JSON, whatever its label says: its
     * first byte other than white space is an opening brace or bracket; white space alone leaves it to the label
     * ({@code labelledEvents}: whether that says event stream).
     */
    static boolean startsJson(byte[] bytes, int count, boolean labelledEvents) {
        for (int i = 0; i < count; i++) {
            byte b = bytes[i];
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return b == '{' || b == '[';
            }
        }
        return !labelledEvents;
    }
}
