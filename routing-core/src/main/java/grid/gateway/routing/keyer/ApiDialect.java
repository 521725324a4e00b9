package grid.gateway.routing.keyer;

import java.util.Optional;

/**
 * The four request APIs whose bodies the keyer reads, chosen by the request path (docs/design.md §4).
 *
 * <p>Stateless and thread-safe.
 */
public enum ApiDialect {
    CHAT_COMPLETIONS("/v1/chat/completions"),
    COMPLETIONS("/v1/completions"),
    MESSAGES("/v1/messages"),
    RESPONSES("/v1/responses");

    private final String path;

    ApiDialect(String path) {
        this.path = path;
    }

    /** The exact path of this API's create endpoint. */
    public String path() {
        return path;
    }

    /** The dialect whose create endpoint is exactly {@code path}, if any. */
    public static Optional<ApiDialect> forPath(String path) {
        for (ApiDialect dialect : values()) {
            if (dialect.path.equals(path)) {
                return Optional.of(dialect);
            }
        }
        return Optional.empty();
    }
}
