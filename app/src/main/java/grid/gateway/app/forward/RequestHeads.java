package grid.gateway.app.forward;

import grid.gateway.app.trace.RequestTrace;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.Method;
import java.io.IOException;
import java.net.URI;
import java.util.List;

/**
 * What a forwarded request sends upstream (docs/design.md §9):
 *
 * <ul>
 *   <li>the request line with the raw path and query as received, after the cluster URL's own path (a tag stripped);
 *   <li>{@code Host} of the cluster and {@code Connection: keep-alive} (the client's {@code Connection} is its own);
 *   <li>the client's fields less the hop-by-hop ones ({@link HopByHopHeaders}), {@code Host}, {@code Content-Length},
 *       {@code Expect}, and those the gateway sets itself: the trace context when it sends its own,
 *       {@code X-Forwarded-For} (the client's, every line of it as one list, with the client's address appended),
 *       {@code X-Request-Id} (the request's id: the client's when well-formed, else the gateway's), and, on a path
 *       whose answers carry stored ids to tag, {@code Accept-Encoding: identity}: the ids are found in the answer's
 *       bytes, which a compressed answer would hide;
 *   <li>{@code Content-Length} of the body as held.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class RequestHeads {
    /** A body up to this size goes out in the same write as its head. */
    static final int ONE_WRITE = 16 * 1024;

    private static final String IDENTITY = "identity";

    /** One request's bytes, ready to be written, as often as the request is sent. */
    static final class Bytes {
        private final byte[] head;
        private final byte[] body;

        private Bytes(byte[] head, byte[] body) {
            this.head = head;
            this.body = body;
        }

        /**
         * Writes the request's head to {@code connection}, watched by {@code alarm}, with the body when it is short
         * enough to go in the same write.
         */
        void writeHead(UpstreamConnection connection, IdleAlarm alarm) throws IOException {
            alarm.write(connection, head, 0, head.length);
        }

        /** The body still to write after {@link #writeHead}: empty when it went with the head, or there is none. */
        byte[] bodyAfterHead() {
            return body;
        }
    }

    /** The bytes of {@code request} to the cluster at {@code base}, reached at {@code origin}. */
    Bytes of(URI base, Origin origin, ForwardRequest request) {
        String basePath = base.getRawPath() == null ? "" : base.getRawPath();
        if (basePath.endsWith("/")) {
            basePath = basePath.substring(0, basePath.length() - 1);
        }
        RequestHead head = new RequestHead(request.method().text(), basePath + request.target());
        head.field("Host", origin.authority());
        // Said although HTTP/1.1 keeps connections by default: some servers still look for it.
        head.field("Connection", "keep-alive");
        Headers headers = request.headers();
        HopByHopHeaders hopByHop = HopByHopHeaders.of(headers);
        RequestTrace trace = request.trace();
        boolean identity = request.tagsIds();
        for (Header header : headers) {
            if (!hopByHop.drops(header) && !setHere(header, identity) && !trace.replaces(header.name())) {
                fields(head, header);
            }
        }
        trace.outgoing().forEach(head::field);
        head.field("X-Forwarded-For", forwardedFor(headers, hopByHop) + request.peer());
        // The request id the client is given back: the engine (vLLM) takes it as its own request id.
        head.field("X-Request-Id", request.access().requestId());
        if (identity) {
            head.field("Accept-Encoding", IDENTITY);
        }
        byte[] body = request.body();
        Method method = request.method();
        if (body.length > 0 || method == Method.POST || method == Method.PUT || method == Method.PATCH) {
            // POST, PUT and PATCH define content, so an empty one is announced as such (RFC 9110 §8.6).
            head.field("Content-Length", Integer.toString(body.length));
        }
        boolean together = body.length <= ONE_WRITE;
        return new Bytes(head.end(body, together), together ? new byte[0] : body);
    }

    /**
     * The client's {@code X-Forwarded-For} list followed by ", ", or empty: every field line of it, in order, as one
     * list (RFC 9110 §5.3), since a proxy in front may add its own line rather than append to the client's (HAProxy's
     * {@code option forwardfor} does); none when its {@code Connection} names it (it is then the client's hop only).
     */
    private static String forwardedFor(Headers headers, HopByHopHeaders hopByHop) {
        if (!headers.contains(HeaderNames.X_FORWARDED_FOR)) {
            return "";
        }
        Header header = headers.get(HeaderNames.X_FORWARDED_FOR);
        if (hopByHop.drops(header)) {
            return "";
        }
        StringBuilder list = new StringBuilder();
        for (String value : header.allValues()) {
            if (!value.isBlank()) {
                list.append(value.strip()).append(", ");
            }
        }
        return list.toString();
    }

    private static void fields(RequestHead head, Header header) {
        String name = header.name();
        if (header.valueCount() == 1) {
            head.field(name, header.get());
            return;
        }
        List<String> values = header.allValues();
        for (String value : values) {
            head.field(name, value);
        }
    }

    /** A client field the gateway leaves out because it sets that field itself, or it frames only the client's hop. */
    private static boolean setHere(Header header, boolean identity) {
        String name = header.name();
        return name.equalsIgnoreCase("host")
                || name.equalsIgnoreCase("content-length")
                || name.equalsIgnoreCase("expect")
                || name.equalsIgnoreCase("x-forwarded-for")
                || name.equalsIgnoreCase("x-request-id")
                || (identity && name.equalsIgnoreCase("accept-encoding"));
    }
}
