package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * What relaying an answer taught: its status, the end of its body (where engines put usage), and whether anything
 * reached the client.
 *
 * <p>Not thread-safe; owned by the request's thread.
 *
 * @param status the upstream status
 * @param tail the last bytes of the body
 * @param failedBeforeBody empty when status and headers went out and the body was relayed (or had none); else why
 *     the upstream failed before its first body byte ({@link UpstreamFailure#TIMEOUT} silent past the idle timeout,
 *     {@link UpstreamFailure#RESET} broken), when nothing was sent to the client
 */
public record RelayResult(int status, BodyTail tail, Optional<UpstreamFailure> failedBeforeBody) {
    public RelayResult {
        requireNonNull(tail, "tail");
        requireNonNull(failedBeforeBody, "failedBeforeBody");
    }

    /** An answer relayed to the client. */
    public RelayResult(int status, BodyTail tail) {
        this(status, tail, Optional.empty());
    }

    /** Whether the client got the answer's status and body. */
    public boolean delivered() {
        return failedBeforeBody.isEmpty();
    }
}
