package grid.gateway.app.http;

/**
 * A chunk of a request body that {@code server.max_inflight_body_bytes} has no room to gather, refused at its size line
 * before any of it is read ({@link RequestLineKeeper}); the request is then over the body budget (503).
 *
 * <p>Not thread-safe (an exception).
 */
final class ChunkOverBudget extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ChunkOverBudget(long announced) {
        super("a body chunk of " + announced + " bytes announced, more than the body budget has room for");
    }
}
