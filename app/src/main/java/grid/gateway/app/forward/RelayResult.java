package grid.gateway.app.forward;

/**
 * What relaying an answer taught: its status, the end of its body (where engines put usage), and whether anything
 * reached the client.
 *
 * <p>Not thread-safe; owned by the request's thread.
 *
 * @param status the upstream status
 * @param tail the last bytes of the body
 * @param delivery whether the answer went out, or broke before its first body byte (nothing sent to the client)
 */
public record RelayResult(int status, BodyTail tail, Delivery delivery) {
    /** Whether the client got the answer's status, or nothing at all. */
    public enum Delivery {
        /** Status and headers went out; the body was relayed (or had none). */
        DELIVERED,
        /** The upstream broke before the first body byte could be read: nothing was sent to the client. */
        BROKEN_BEFORE_BODY,
        /** The upstream stayed silent past the idle timeout before its first body byte: nothing was sent. */
        TIMED_OUT_BEFORE_BODY
    }

    /** An answer relayed to the client. */
    public RelayResult(int status, BodyTail tail) {
        this(status, tail, Delivery.DELIVERED);
    }
}
