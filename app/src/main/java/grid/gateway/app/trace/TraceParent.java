package grid.gateway.app.trace;

import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * A W3C Trace Context {@code traceparent} value: {@code version-traceid-parentid-flags}, lower-case hex. Parsing
 * follows the Trace Context rules: version {@code ff} and all-zero ids are invalid; a version above {@code 00} may
 * carry more fields after the flags (ignored), version {@code 00} none. What is passed on is always version
 * {@code 00}.
 *
 * <p>Thread-safe (immutable).
 *
 * @param traceId 32 lower-case hex digits, not all zero
 * @param parentId 16 lower-case hex digits, not all zero
 * @param flags 2 lower-case hex digits (bit 0: sampled)
 */
record TraceParent(String traceId, String parentId, String flags) {
    /** The header name, lower case as HTTP/2 and the recommendation write it. */
    static final String HEADER = "traceparent";
    /** The companion header of vendor entries, passed on unchanged with a valid {@code traceparent}. */
    static final String STATE_HEADER = "tracestate";

    private static final int LENGTH = 55;

    /** The value in {@code text}, or empty when it is not a valid {@code traceparent}. */
    static Optional<TraceParent> parse(String text) {
        String value = text.strip();
        if (value.length() < LENGTH || (value.length() > LENGTH && value.charAt(LENGTH) != '-')) {
            return Optional.empty();
        }
        String version = value.substring(0, 2);
        if (!hex(version) || version.equals("ff") || (version.equals("00") && value.length() != LENGTH)) {
            return Optional.empty();
        }
        if (value.charAt(2) != '-' || value.charAt(35) != '-' || value.charAt(52) != '-') {
            return Optional.empty();
        }
        String traceId = value.substring(3, 35);
        String parentId = value.substring(36, 52);
        String flags = value.substring(53, 55);
        if (!hex(traceId) || !hex(parentId) || !hex(flags) || zero(traceId) || zero(parentId)) {
            return Optional.empty();
        }
        return Optional.of(new TraceParent(traceId, parentId, flags));
    }

    /** The same trace with a new parent id drawn from {@code random}: the context of a span of the gateway's own. */
    TraceParent child(RandomGenerator random) {
        long id;
        do {
            id = random.nextLong();
        } while (id == 0);
        return new TraceParent(traceId, String.format("%016x", id), flags);
    }

    /** The header value, version {@code 00}. */
    String header() {
        return "00-" + traceId + "-" + parentId + "-" + flags;
    }

    private static boolean hex(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static boolean zero(String text) {
        return text.chars().allMatch(c -> c == '0');
    }
}
