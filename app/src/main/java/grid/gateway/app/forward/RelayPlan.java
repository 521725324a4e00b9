package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * What the relay does with one answer besides copying it ({@link ResponseRelay#relay}).
 *
 * @param rewrite the ids it tags ({@link AnswerRewrite#NONE}: none)
 * @param firstBytes run once when the first body bytes are in hand, before anything goes to the client
 * @param watch told how the answer went out, for the access line (the request's access record)
 * @param sendTimeout the longest one write to the client may wait ({@code server.send_timeout_ms})
 * @param memory where the memory held for the answer is counted
 */
public record RelayPlan(
        AnswerRewrite rewrite, Runnable firstBytes, RelayWatch watch, Duration sendTimeout, AnswerMemory memory) {
    public RelayPlan {
        requireNonNull(rewrite, "rewrite");
        requireNonNull(firstBytes, "firstBytes");
        requireNonNull(watch, "watch");
        requireNonNull(sendTimeout, "sendTimeout");
        requireNonNull(memory, "memory");
    }
}
