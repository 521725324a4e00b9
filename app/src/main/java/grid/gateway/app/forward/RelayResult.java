package grid.gateway.app.forward;

/**
 * What relaying an answer taught: its status and the end of its body (where engines put usage).
 *
 * <p>Not thread-safe; owned by the request's thread.
 *
 * @param status the upstream status
 * @param tail the last bytes of the body
 */
public record RelayResult(int status, BodyTail tail) {}
