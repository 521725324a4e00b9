package grid.gateway.app.http;

/**
 * A chunk of a request body announced longer than {@code server.max_body_bytes}, refused at its size line before any
 * of it is read ({@link RequestLineKeeper}); the body is then too large (413).
 *
 * <p>Not thread-safe (an exception).
 */
final class ChunkOverLimit extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ChunkOverLimit(long announced, long limit) {
        super("a body chunk of " + announced + " bytes announced, over the limit of " + limit);
    }
}
