package grid.gateway.routing.grid;

/**
 * What a replica forwards (docs/design.md §8).
 *
 * <p>Stateless and thread-safe.
 */
public enum Role {
    /** The full API. */
    CONSUMER,
    /** Only the configured exact paths. */
    PROVIDER
}
