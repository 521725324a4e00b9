package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

/**
 * What the relay does with one answer besides copying it ({@link ResponseRelay#relay}).
 *
 * @param rewrite the ids it tags ({@link AnswerRewrite#NONE}: none)
 * @param firstBytes run once when the first body bytes are in hand, before anything goes to the client
 * @param watch told how the answer went out, for the access line (the request's access record)
 * @param sendDeadline how long the client may take nothing ({@code server.send_timeout_ms}), and where its progress is
 *     read
 * @param memory where the memory held for the answer is counted
 * @param readsUsage whether the answer's tail is read for its usage once it ended (else none is kept)
 */
public record RelayPlan(
        AnswerRewrite rewrite,
        Runnable firstBytes,
        RelayWatch watch,
        SendDeadline sendDeadline,
        AnswerMemory memory,
        boolean readsUsage) {
    public RelayPlan {
        requireNonNull(rewrite, "rewrite");
        requireNonNull(firstBytes, "firstBytes");
        requireNonNull(watch, "watch");
        requireNonNull(sendDeadline, "sendDeadline");
        requireNonNull(memory, "memory");
    }

    /** The tail to keep of the answer's body: an event stream's last events, or a body's last bytes; counted. */
    BodyTail tail(boolean events) {
        if (!readsUsage) {
            return BodyTail.unread();
        }
        return events ? BodyTail.ofEvents(memory) : new BodyTail(memory);
    }
}
